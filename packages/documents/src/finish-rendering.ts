import { presentDocument } from '@docgen/contracts';
import { GroupedStatement, NotSentInTime, type Database, type Document } from '@docgen/db';
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

/**
 * FINISH_RENDERING for several documents at once, none of them a bulk row: $1 is a JSON array
 * with an object per finish (FinishRequest), each answered by a row in its order. A finish
 * whose document another finish of the group already changed (the same document twice) is
 * answered as one that came second. PostgreSQL plans it again on every run, so a lone finish
 * takes FINISH_RENDERING, whose plan is kept.
 */
const FINISH_RENDERINGS = {
  name: 'finish-renderings',
  text: `WITH request AS (
           SELECT (e->>'id')::uuid AS id, (e->>'generation')::int AS generation, (e->>'render_attempts')::int AS render_attempts,
                  e->>'status' AS status, (e->>'completed_at')::timestamptz AS completed_at,
                  ARRAY(SELECT f FROM jsonb_array_elements_text(e->'files') WITH ORDINALITY AS t(f, n) ORDER BY n) AS files, e->>'error_message' AS error_message,
                  NULLIF(e->'errors', 'null'::jsonb) AS errors, e->>'type' AS type, e->'payload' AS payload,
                  e->>'expected_status' AS expected_status, (e->>'new_attempts')::int AS new_attempts,
                  (e->>'rendering_started_at')::timestamptz AS rendering_started_at, ord
           FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS requests(e, ord)
         ), finished AS (
           UPDATE documents d SET status = r.status, completed_at = r.completed_at, updated_at = r.completed_at, files = r.files,
                  error_message = r.error_message, errors = r.errors, render_attempts = r.new_attempts, rendering_started_at = r.rendering_started_at
           FROM request r
           WHERE d.id = r.id AND d.generation = r.generation AND d.bulk_job_id IS NULL AND (
                   (d.status = r.expected_status AND d.render_attempts = r.render_attempts)
                OR (r.expected_status = 'queued' AND d.status = 'rendering' AND d.render_attempts = r.new_attempts AND d.rendering_started_at = r.rendering_started_at))
           RETURNING d.id, d.organization_id, d.is_uat, r.ord, r.type, r.payload
         ), event AS (
           INSERT INTO outbox_events (type, organization_id, is_uat, subject_id, payload)
           SELECT type, organization_id, is_uat, id, payload FROM finished
           RETURNING id, type, organization_id, is_uat, subject_id, NULL::jsonb AS payload
         ), endpoints AS (
           SELECT e.id AS event_id, w.id FROM webhook_endpoints w JOIN event e ON ${subscribes('w', 'e')}
         ), first_attempts AS (
           ${logFirstAttempts('event', 'endpoints', 'e.subject_id')}
         )
         SELECT f.id AS "documentId", ev.id AS "eventId", ARRAY(SELECT p.id FROM endpoints p WHERE p.event_id = ev.id) AS "endpointIds",
                NULL::uuid AS "bulkJobDone"
         FROM request r LEFT JOIN finished f ON f.ord = r.ord LEFT JOIN event ev ON ev.subject_id = f.id
         ORDER BY r.ord`,
};

interface FinishRow {
  documentId: string | null;
  eventId: string | null;
  endpointIds: string[];
  bulkJobDone: string | null;
}

/** How a render ended: its files, or what the user is told. */
export type FinishOutcome = { status: 'ready'; files: string[] } | { status: 'failed'; errorMessage: string; errors?: InputProblem[] };

/** One finish: FINISH_RENDERING's parameters, named as FINISH_RENDERINGS reads them. */
interface FinishRequest {
  id: string;
  generation: number;
  render_attempts: number;
  status: 'ready' | 'failed';
  completed_at: Date;
  files: string[];
  error_message: string | null;
  type: CompletionEvent;
  payload: object | null;
  errors: InputProblem[] | null;
  expected_status: 'queued' | 'rendering';
  new_attempts: number;
  rendering_started_at: Date | null;
}

function finishRequest(doc: Document, outcome: FinishOutcome): FinishRequest {
  const completedAt = new Date();
  const unmarked = doc.status === 'queued';
  const files = outcome.status === 'ready' ? outcome.files : [];
  const errorMessage = outcome.status === 'failed' ? outcome.errorMessage : null;
  const errors = outcome.status === 'failed' && outcome.errors?.length ? outcome.errors : null;
  const type: CompletionEvent = outcome.status === 'ready' ? 'document.ready' : 'document.failed';
  const finished = { ...doc, status: outcome.status, completedAt, updatedAt: completedAt, files, errorMessage, errors };
  return {
    id: doc.id,
    generation: doc.generation,
    render_attempts: doc.renderAttempts,
    status: outcome.status,
    completed_at: completedAt,
    files,
    error_message: errorMessage,
    type,
    payload: doc.bulkJobId ? null : buildEventPayload(type, doc.id, completedAt, presentDocument(finished)),
    errors,
    expected_status: unmarked ? 'queued' : 'rendering',
    new_attempts: unmarked ? doc.renderAttempts + 1 : doc.renderAttempts,
    rendering_started_at: doc.renderingStartedAt,
  };
}

function finishRows(db: Database, requests: FinishRequest[]): Promise<FinishRow[]> {
  if (requests.length > 1) return db.sql.query<FinishRow>(FINISH_RENDERINGS, [JSON.stringify(requests)]);
  const [r] = requests as [FinishRequest];
  return db.sql.query<FinishRow>(FINISH_RENDERING, [
    r.id,
    r.generation,
    r.render_attempts,
    r.status,
    r.completed_at,
    r.files,
    r.error_message,
    r.type,
    JSON.stringify(r.payload),
    r.status === 'ready' ? 1 : 0,
    r.status === 'failed' ? 1 : 0,
    r.errors === null ? null : JSON.stringify(r.errors),
    r.expected_status,
    r.new_attempts,
    r.rendering_started_at,
  ]);
}

function toFinished(row: FinishRow | undefined, type: CompletionEvent): Finished | undefined {
  if (!row?.documentId) return undefined;
  if (row.eventId) return { event: { id: row.eventId, type, endpointIds: row.endpointIds } };
  return row.bulkJobDone ? { bulkJobDone: row.bulkJobDone } : {};
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
export async function finishRendering(db: Database, doc: Document, outcome: FinishOutcome): Promise<Finished | undefined> {
  const request = finishRequest(doc, outcome);
  const [row] = await finishRows(db, [request]);
  return toFinished(row, request.type);
}

/**
 * How long a finish waits to join a group (two statements held up): then it goes alone, as
 * every finish did before they were grouped, so a stuck statement delays the others by this
 * much, never fails them.
 */
const FINISH_GROUP_WAIT_MS = 1_000;

/**
 * A render worker's finishes (finishRendering): the documents of a batch come out of one
 * LibreOffice call together, and finishes made while two statements run share a
 * FINISH_RENDERINGS statement (GroupedStatement), so PostgreSQL executes and commits once for
 * them; a lone finish goes at once. A bulk row goes alone: its bulk job's count is kept
 * under that job's row lock, one finishing row a statement.
 */
export class DocumentFinishes {
  private readonly grouped: GroupedStatement<FinishRequest, FinishRow>;

  constructor(private readonly db: Database) {
    this.grouped = new GroupedStatement((requests) => finishRows(db, requests), { maxWaitMs: FINISH_GROUP_WAIT_MS });
  }

  async finish(doc: Document, outcome: FinishOutcome): Promise<Finished | undefined> {
    if (doc.bulkJobId) return finishRendering(this.db, doc, outcome);
    const request = finishRequest(doc, outcome);
    const row = await this.grouped.call(request).catch(async (error: unknown) => {
      if (!(error instanceof NotSentInTime)) throw error;
      return (await finishRows(this.db, [request]))[0];
    });
    return toFinished(row, request.type);
  }
}
