import { ASYNCHRONOUS_COMMIT, type Database } from '@docgen/db';

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

/** The event and its endpoint (unless deleted or already delivered), and the attempt logged as pending, in one round trip. */
const START_ATTEMPT = {
  name: 'start-webhook-attempt',
  text: `WITH target AS (
           SELECT e.payload, w.url, w.secret
           FROM outbox_events e JOIN webhook_endpoints w ON w.id = $2 AND w.deleted_at IS NULL
           WHERE e.id = $1
             -- a job queued again after Redis lost it must not deliver twice what already arrived
             AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = $1 AND d.endpoint_id = $2 AND d.status = 'succeeded')
         ), logged AS (
           INSERT INTO webhook_deliveries (event_id, endpoint_id, attempt, event, job_id, webhook_id, status)
           SELECT $1, $2, $3, payload->>'event', (payload->>'job_id')::uuid, $4, 'pending' FROM target
           ON CONFLICT (event_id, endpoint_id, attempt)
           DO UPDATE SET status = 'pending', response_status = NULL, error = NULL, duration_ms = NULL
         )
         SELECT payload, url, secret FROM target CROSS JOIN ${ASYNCHRONOUS_COMMIT}`,
};

const FINISH_ATTEMPT = {
  name: 'finish-webhook-attempt',
  text: `UPDATE webhook_deliveries SET status = $4, response_status = $5, error = $6, duration_ms = $7
         FROM ${ASYNCHRONOUS_COMMIT} WHERE event_id = $1 AND endpoint_id = $2 AND attempt = $3`,
};

/**
 * Logs an attempt as pending before its request, so the log shows every attempt even if the
 * dispatcher dies mid-request; undefined when there is nothing to send (endpoint deleted,
 * event already delivered). Neither write of an attempt waits for the disk: a log row a
 * PostgreSQL crash takes back costs at most a second delivery with the same webhook-id (the
 * lost-delivery sweep finds the delivery unfinished), never a lost one.
 */
export async function startAttempt(db: Database, key: AttemptKey, webhookId: string): Promise<AttemptTarget | undefined> {
  const [target] = await db.sql.query<AttemptTarget>(START_ATTEMPT, [key.eventId, key.endpointId, key.attempt, webhookId]);
  return target;
}

/** Records how the attempt ended. */
export async function finishAttempt(
  db: Database,
  key: AttemptKey,
  outcome: { status: 'succeeded' | 'failed'; responseStatus: number | null; error: string | null; durationMs: number },
): Promise<void> {
  await db.sql.query(FINISH_ATTEMPT, [key.eventId, key.endpointId, key.attempt, outcome.status, outcome.responseStatus, outcome.error, outcome.durationMs]);
}
