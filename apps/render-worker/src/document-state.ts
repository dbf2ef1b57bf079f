import type { Queue } from 'bullmq';
import { presentDocument } from '@docgen/contracts';
import type { Database, Document } from '@docgen/db';
import { renderJobId, type RenderJob } from '@docgen/queue';
import { subscribedEndpoints, type PublishableEvent } from './outbox-relay';

export type CompletionEvent = 'document.ready' | 'document.failed';

/** Every column of a document row, named as Prisma's Document type names them. */
const DOCUMENT_COLUMNS = `id, organization_id AS "organizationId", template_id AS "templateId", is_uat AS "isUat", status,
  input_format AS "inputFormat", output_format AS "outputFormat", pdf_standard AS "pdfStandard", input_json AS "inputJson", error_message AS "errorMessage",
  files, idempotency_key AS "idempotencyKey", request_hash AS "requestHash", generation, render_attempts AS "renderAttempts",
  rendering_started_at AS "renderingStartedAt", created_at AS "createdAt", updated_at AS "updatedAt",
  completed_at AS "completedAt", bulk_job_id AS "bulkJobId", row_number AS "rowNumber", purged_at AS "purgedAt"`;

/** A document taken for rendering, with what the render needs of its template. */
export type RenderingDocument = Document & { template: { variables: unknown; fileKey: string; locale: string } };

const START_RENDERING = {
  name: 'start-rendering',
  text: `WITH started AS (
           UPDATE documents SET status = 'rendering', rendering_started_at = $3, render_attempts = render_attempts + 1, updated_at = $3
           WHERE id = $1 AND generation = $2 AND status IN ('queued', 'rendering')
           RETURNING ${DOCUMENT_COLUMNS}
         )
         SELECT started.*, json_build_object('variables', t.variables, 'fileKey', t.file_key, 'locale', t.locale) AS template
         FROM started JOIN templates t ON t.id = started."templateId"`,
};

/**
 * queued → rendering, and the document's template, in one round trip. Only for the
 * generation the job was queued for; a job for an older generation, or for a document
 * already finished, finds nothing and stands down. A document already "rendering" is
 * taken over: its previous worker died.
 */
export async function startRendering(db: Database, documentId: string, generation: number): Promise<RenderingDocument | undefined> {
  const [doc] = await db.sql.query<RenderingDocument>(START_RENDERING, [documentId, generation, new Date()]);
  return doc;
}

export interface Finished {
  /** The completion event to publish, with the endpoints subscribed to it; none for a row of a bulk job (it has bulk.completed). */
  event?: PublishableEvent;
  /** Set when this was the last row of its bulk job: the ZIP can be assembled. */
  bulkJobDone?: string;
}

/** One render attempt of a document: every change it makes is conditional on still being it. */
export type Attempt = Pick<Document, 'id' | 'generation' | 'renderAttempts'>;

/** The row as long as it is still in `status` for this attempt (nobody finished, re-queued or took it over). */
const sameAttempt = (doc: Attempt, status: 'rendering' | 'queued') => ({
  id: doc.id,
  generation: doc.generation,
  renderAttempts: doc.renderAttempts,
  status,
});

/**
 * The document's outcome; for a standalone document its completion event and the endpoints
 * subscribed to it; for a bulk row its bulk job's count, where the row lock on the bulk
 * job makes exactly one finishing row see the count complete. One statement, so one
 * commit: the event (or the count) changes if and only if the document did.
 */
const FINISH_RENDERING = {
  name: 'finish-rendering',
  text: `WITH finished AS (
           UPDATE documents SET status = $4, completed_at = $5, updated_at = $5, files = $6::text[], error_message = $7
           WHERE id = $1 AND generation = $2 AND render_attempts = $3 AND status = 'rendering'
           RETURNING id, organization_id, is_uat, bulk_job_id
         ), event AS (
           INSERT INTO outbox_events (type, organization_id, is_uat, subject_id, payload)
           SELECT $8, organization_id, is_uat, id, $9::jsonb FROM finished WHERE bulk_job_id IS NULL
           RETURNING id, type, organization_id, is_uat
         ), bulk AS (
           UPDATE bulk_jobs b SET status = 'running', succeeded = b.succeeded + $10, failed = b.failed + $11, updated_at = $5
           FROM finished WHERE b.id = finished.bulk_job_id AND b.status IN ('queued', 'running')
           RETURNING b.id, b.succeeded + b.failed = b.total_rows AS done
         )
         SELECT (SELECT id FROM finished) AS "documentId",
                (SELECT id FROM event) AS "eventId",
                ARRAY(${subscribedEndpoints('event')}) AS "endpointIds",
                (SELECT id FROM bulk WHERE done) AS "bulkJobDone"`,
};

interface FinishRow {
  documentId: string | null;
  eventId: string | null;
  endpointIds: string[];
  bulkJobDone: string | null;
}

/**
 * rendering → ready | failed, and its announcement, at once: the completion event (or the
 * bulk job's count) changes if and only if this call made the change, so it is announced
 * exactly once. Only the attempt that is current may finish: returns undefined when
 * another call got there first or a newer attempt took the document over.
 */
export async function finishRendering(
  db: Database,
  doc: Document,
  outcome: { status: 'ready'; files: string[] } | { status: 'failed'; errorMessage: string },
): Promise<Finished | undefined> {
  const completedAt = new Date();
  const files = outcome.status === 'ready' ? outcome.files : [];
  const errorMessage = outcome.status === 'failed' ? outcome.errorMessage : null;
  const type: CompletionEvent = outcome.status === 'ready' ? 'document.ready' : 'document.failed';
  const finished = { ...doc, status: outcome.status, completedAt, updatedAt: completedAt, files, errorMessage };
  const payload = doc.bulkJobId ? null : { job_id: doc.id, event: type, occurred_at: completedAt.toISOString(), data: presentDocument(finished) };
  const [row] = await db.sql.query<FinishRow>(FINISH_RENDERING, [
    doc.id,
    doc.generation,
    doc.renderAttempts,
    outcome.status,
    completedAt,
    files,
    errorMessage,
    type,
    JSON.stringify(payload),
    outcome.status === 'ready' ? 1 : 0,
    outcome.status === 'failed' ? 1 : 0,
  ]);
  if (!row?.documentId) return undefined;
  if (row.eventId) return { event: { id: row.eventId, type, endpointIds: row.endpointIds } };
  return row.bulkJobDone ? { bulkJobDone: row.bulkJobDone } : {};
}

/** rendering → queued while the document waits for BullMQ to retry it (after a retryable failure). */
export async function waitForRetry(db: Database, doc: Attempt): Promise<boolean> {
  const { count } = await db.document.updateMany({ where: sameAttempt(doc, 'rendering'), data: { status: 'queued' } });
  return count === 1;
}

/**
 * rendering | queued → queued under a new generation, with a new render job: for a
 * document whose worker stopped or whose job was lost. A job still around for the old
 * generation stands down when it runs, and the old attempt can no longer finish. If the
 * job cannot be queued, the document is put back as it was for the next sweep.
 */
export async function requeueAsNewGeneration(db: Database, queue: Queue<RenderJob>, doc: Attempt, from: 'rendering' | 'queued'): Promise<boolean> {
  const [requeued] = await db.document.updateManyAndReturn({
    where: sameAttempt(doc, from),
    data: { status: 'queued', generation: { increment: 1 } },
  });
  if (!requeued) return false;
  const job: RenderJob = { documentId: requeued.id, generation: requeued.generation };
  try {
    await queue.add('render', job, { jobId: renderJobId(job) });
  } catch (error) {
    await db.document.updateMany({ where: sameAttempt(requeued, 'queued'), data: { status: from, generation: doc.generation } });
    throw error;
  }
  return true;
}
