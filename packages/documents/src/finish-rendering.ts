import { presentDocument } from '@docgen/contracts';
import type { Database, Document } from '@docgen/db';
import { logFirstAttempts } from '@docgen/webhooks';
import { buildEventPayload } from './events/envelope';
import type { PublishableEvent } from './events/outbox-relay';
import { subscribes } from './events/subscribers';

export type CompletionEvent = 'document.ready' | 'document.failed';

/** One problem of a document's input: where, and what is wrong (API.md §9). */
export interface InputProblem {
  path: string;
  message: string;
}

export interface Finished {
  /** The completion event to publish, with the endpoints subscribed to it; none for a row of a bulk job (it has bulk.completed). */
  event?: PublishableEvent;
  /** Set when this was the last row of its bulk job: the ZIP can be assembled. */
  bulkJobDone?: string;
}

/**
 * The document's outcome; for a standalone document its completion event and the endpoints
 * subscribed to it, with each delivery's first attempt logged pending (so the dispatcher's
 * first attempt writes nothing before its request); for a bulk row its bulk job's count,
 * where the row lock on the bulk job makes exactly one finishing row see the count
 * complete. One statement, so one commit: the event (or the count) changes if and only if
 * the document did.
 */
const FINISH_RENDERING = {
  name: 'finish-rendering',
  text: `WITH finished AS (
           UPDATE documents SET status = $4, completed_at = $5, updated_at = $5, files = $6::text[], error_message = $7, errors = $12::jsonb,
                  render_attempts = $14, rendering_started_at = $15
           WHERE id = $1 AND generation = $2 AND (
                   (status = $13 AND render_attempts = $3)
                   -- an unmarked attempt whose own mark got in first. No other take of this generation writes this count:
                   -- a later pick-up of the same job counts at least its job's takes (2 or more, start-rendering's
                   -- GREATEST), and every other re-queue is a new generation. The start is checked as well.
                OR ($13 = 'queued' AND status = 'rendering' AND render_attempts = $14 AND rendering_started_at = $15))
           RETURNING id, organization_id, is_uat, bulk_job_id
         ), event AS (
           INSERT INTO outbox_events (type, organization_id, is_uat, subject_id, payload)
           SELECT $8, organization_id, is_uat, id, $9::jsonb FROM finished WHERE bulk_job_id IS NULL
           -- the columns the subscription rule reads; a completion event is never a webhook.test, so no payload
           RETURNING id, type, organization_id, is_uat, NULL::jsonb AS payload
         ), endpoints AS (
           SELECT e.id AS event_id, w.id FROM webhook_endpoints w JOIN event e ON ${subscribes('w', 'e')}
         ), first_attempts AS (
           ${logFirstAttempts('event', 'endpoints', '$1::uuid')}
         ), bulk AS (
           UPDATE bulk_jobs b SET status = 'running', succeeded = b.succeeded + $10, failed = b.failed + $11, updated_at = $5
           FROM finished WHERE b.id = finished.bulk_job_id AND b.status IN ('queued', 'running')
           RETURNING b.id, b.succeeded + b.failed = b.total_rows AS done
         )
         SELECT (SELECT id FROM finished) AS "documentId",
                (SELECT id FROM event) AS "eventId",
                ARRAY(SELECT id FROM endpoints) AS "endpointIds",
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
 * A document still `queued` is a first attempt not yet marked rendering (RenderingAttempt):
 * the finish counts that attempt and records when it started, and also finishes it should
 * the attempt's own mark have committed meanwhile (the mark's timer runs until the finish
 * is done, so a finish that hangs still leaves the document `rendering` for the sweep).
 */
export async function finishRendering(
  db: Database,
  doc: Document,
  outcome: { status: 'ready'; files: string[] } | { status: 'failed'; errorMessage: string; errors?: InputProblem[] },
): Promise<Finished | undefined> {
  const completedAt = new Date();
  const unmarked = doc.status === 'queued';
  const files = outcome.status === 'ready' ? outcome.files : [];
  const errorMessage = outcome.status === 'failed' ? outcome.errorMessage : null;
  const errors = outcome.status === 'failed' && outcome.errors?.length ? outcome.errors : null;
  const type: CompletionEvent = outcome.status === 'ready' ? 'document.ready' : 'document.failed';
  const finished = { ...doc, status: outcome.status, completedAt, updatedAt: completedAt, files, errorMessage, errors };
  const payload = doc.bulkJobId ? null : buildEventPayload(type, doc.id, completedAt, presentDocument(finished));
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
    errors === null ? null : JSON.stringify(errors),
    unmarked ? 'queued' : 'rendering',
    unmarked ? doc.renderAttempts + 1 : doc.renderAttempts,
    doc.renderingStartedAt,
  ]);
  if (!row?.documentId) return undefined;
  if (row.eventId) return { event: { id: row.eventId, type, endpointIds: row.endpointIds } };
  return row.bulkJobDone ? { bulkJobDone: row.bulkJobDone } : {};
}
