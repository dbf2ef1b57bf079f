import { ASYNCHRONOUS_COMMIT, WriteBatch, type Database } from '@docgen/db';
import { WEBHOOK_MAX_ATTEMPTS } from '../retry-schedule';

/** What one attempt sends, and where. */
export interface AttemptTarget {
  payload: { job_id: string; event: string };
  url: string;
  secret: string;
}

export interface AttemptKey {
  eventId: string;
  endpointId: string;
  attempt: number;
}

/** `webhookMessageId` (packages/security) in SQL, of the event and endpoint ids `e` and `w`. */
const webhookIdSql = (e: string, w: string) =>
  `'msg_' || left(translate(encode(sha256(convert_to(${e}::text || ':' || ${w}::text, 'UTF8')), 'base64'), '+/=', '-_'), 32)`;

/**
 * SQL for a data-modifying CTE: the first attempt of each delivery of the events in
 * `events` (id, type) to the endpoints in `endpoints` (event_id, id), logged pending in the
 * statement that writes the events. Their first attempt then writes nothing before its request.
 */
export const logFirstAttempts = (events: string, endpoints: string, jobId: string) =>
  `INSERT INTO webhook_deliveries (event_id, endpoint_id, attempt, event, job_id, webhook_id, status)
   SELECT e.id, w.id, 1, e.type, ${jobId}, ${webhookIdSql('e.id', 'w.id')}, 'pending'
   FROM ${events} e JOIN ${endpoints} w ON w.event_id = e.id`;

/**
 * SQL for a data-modifying CTE: the delivery log of the events in `events` (id) deleted, in
 * the statement that deletes the events (the log's retention, with its events).
 */
export const forgetAttemptsOf = (events: string) => `DELETE FROM webhook_deliveries d USING ${events} e WHERE d.event_id = e.id`;

/**
 * The event and its endpoint (unless deleted or already delivered) in one round trip, and
 * the attempt logged as pending unless it already is (a first attempt logged with its
 * event, or an attempt run again after its dispatcher died): then it writes nothing.
 * A retry settles the attempts before it: the new row now holds the delivery open for the
 * lost-delivery sweep (webhook_deliveries_unsettled_idx), so a failing endpoint's history
 * does not stay in what every sweep reads.
 */
const START_ATTEMPT = {
  name: 'start-webhook-attempt',
  text: `WITH target AS (
           SELECT e.payload, w.url, w.secret
           FROM outbox_events e JOIN webhook_endpoints w ON w.id = $2 AND w.deleted_at IS NULL
           WHERE e.id = $1
             -- a job queued again after Redis lost it must not deliver twice what already arrived;
             -- a first attempt offered again ($5) runs only if no attempt has ended (the rest are a job's)
             AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = $1 AND d.endpoint_id = $2
                               AND (d.status = 'succeeded' OR ($5::boolean AND d.status <> 'pending')))
         ), logged AS (
           INSERT INTO webhook_deliveries (event_id, endpoint_id, attempt, event, job_id, webhook_id, status)
           SELECT $1, $2, $3, payload->>'event', (payload->>'job_id')::uuid, $4, 'pending' FROM target
           WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = $1 AND d.endpoint_id = $2 AND d.attempt = $3)
           ON CONFLICT (event_id, endpoint_id, attempt) DO NOTHING
         ), superseded AS (
           UPDATE webhook_deliveries d SET settled = true
           WHERE $3::int > 1 AND d.event_id = $1 AND d.endpoint_id = $2 AND d.attempt < $3
             AND d.status <> 'succeeded' AND NOT d.settled AND EXISTS (SELECT 1 FROM target)
         )
         SELECT payload, url, secret FROM target CROSS JOIN ${ASYNCHRONOUS_COMMIT}`,
};

/** Outcomes of attempts, several in one statement; a failed last attempt settles its delivery. */
const FINISH_ATTEMPTS = {
  name: 'finish-webhook-attempts',
  text: `UPDATE webhook_deliveries d
         SET status = o.status, response_status = o.response_status, error = o.error, duration_ms = o.duration_ms,
             settled = d.settled OR (o.status = 'failed' AND o.attempt >= ${WEBHOOK_MAX_ATTEMPTS})
         FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::text[], $5::int[], $6::text[], $7::int[])
                AS o(event_id, endpoint_id, attempt, status, response_status, error, duration_ms),
              ${ASYNCHRONOUS_COMMIT}
         WHERE d.event_id = o.event_id AND d.endpoint_id = o.endpoint_id AND d.attempt = o.attempt`,
};

/**
 * Logs an attempt as pending before its request (unless its event's statement already did),
 * so the log shows every attempt even if the dispatcher dies mid-request; undefined when
 * there is nothing to send (endpoint deleted, event already delivered, or — for a first
 * attempt taken from the list, `fromList` — an attempt of the delivery already ended: the
 * entry was offered twice or given back late, and what follows is a retry job's to send). Neither write of an
 * attempt waits for the disk: a log row a PostgreSQL crash takes back costs at most a second
 * delivery with the same webhook-id (the lost-delivery sweep finds the delivery unfinished),
 * never a lost one.
 */
export async function startAttempt(db: Database, key: AttemptKey, webhookId: string, fromList = false): Promise<AttemptTarget | undefined> {
  const [target] = await db.sql.query<AttemptTarget>(START_ATTEMPT, [key.eventId, key.endpointId, key.attempt, webhookId, fromList]);
  return target;
}

/**
 * How far a delivery has got: whether it succeeded, the attempts that ended (a `pending` one,
 * logged with its event or left by a dispatcher that died mid-request, is run again under its
 * own number), and how long ago the last of them was logged — measured by the database's
 * clock, which wrote it, so a dispatcher whose clock is off still waits the backoff.
 */
const PROGRESS = {
  name: 'delivery-progress',
  text: `SELECT COALESCE(bool_or(status = 'succeeded'), false) AS succeeded,
                COALESCE(max(attempt) FILTER (WHERE status <> 'pending'), 0)::int AS made,
                (extract(epoch FROM clock_timestamp() - max(created_at) FILTER (WHERE status <> 'pending')) * 1000)::float8 AS since_last_ms
         FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2`,
};

export interface DeliveryProgress {
  succeeded: boolean;
  made: number;
  /** Milliseconds since the last attempt that ended was logged; null before the first. */
  sinceLastMs: number | null;
}

export async function deliveryProgress(db: Database, delivery: { eventId: string; endpointId: string }): Promise<DeliveryProgress> {
  const [row] = await db.sql.query<{ succeeded: boolean; made: number; since_last_ms: number | null }>(PROGRESS, [delivery.eventId, delivery.endpointId]);
  return { succeeded: row?.succeeded ?? false, made: row?.made ?? 0, sinceLastMs: row?.since_last_ms ?? null };
}

export interface AttemptOutcome {
  status: 'succeeded' | 'failed';
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** How long outcomes gather before one statement writes them all. */
const OUTCOME_WINDOW_MS = 250;

/**
 * Records how attempts ended, gathered into one write over 250 ms or until `maxBatch` have
 * ended; `record` settles when the write carrying its outcome has committed, so a delivery
 * job completes (and leaves Redis) only once its outcome is logged. A job waiting for that
 * write holds one of the dispatcher's WEBHOOK_CONCURRENCY slots, so `maxBatch` (half of
 * them) keeps a busy dispatcher from running out of slots while outcomes gather.
 */
export class AttemptOutcomes {
  private readonly batch: WriteBatch<AttemptKey & AttemptOutcome>;

  constructor(db: Database, options: { windowMs?: number; maxBatch: number }) {
    this.batch = new WriteBatch(
      (rows) =>
        db.sql.query(FINISH_ATTEMPTS, [
          rows.map((row) => row.eventId),
          rows.map((row) => row.endpointId),
          rows.map((row) => row.attempt),
          rows.map((row) => row.status),
          rows.map((row) => row.responseStatus),
          rows.map((row) => row.error),
          rows.map((row) => row.durationMs),
        ]),
      options.windowMs ?? OUTCOME_WINDOW_MS,
      options.maxBatch,
    );
  }

  record(key: AttemptKey, outcome: AttemptOutcome): Promise<void> {
    return this.batch.add({ ...key, ...outcome });
  }

  /** Writes what has gathered (on shutdown). */
  flush(): Promise<void> {
    return this.batch.flush();
  }
}
