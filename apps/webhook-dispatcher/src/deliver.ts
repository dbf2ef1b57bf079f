import type { Job } from 'bullmq';
import { ASYNCHRONOUS_COMMIT, type Database } from '@docgen/db';
import type { Logger } from '@docgen/observability';
import { DeliveryJob } from '@docgen/queue';
import { OutboundBlockedError, guardedFetch, signWebhook, webhookMessageId, type GuardedFetchOptions } from '@docgen/security';

export interface DeliverDeps {
  db: Database;
  logger: Logger;
  fetch: Omit<GuardedFetchOptions, 'method' | 'headers' | 'body'>;
  onAttempt?: (outcome: 'succeeded' | 'failed', seconds: number) => void;
}

export class DeliveryFailedError extends Error {
  override name = 'DeliveryFailedError';
}

/** Waits of 1×, 2×, 4× the base between the attempts. */
export const retryDelayMs = (baseMs: number, attemptsMade: number) => baseMs * 2 ** Math.max(0, attemptsMade - 1);

interface Target {
  payload: { job_id: string; event: string };
  url: string;
  secret: string;
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
 * One attempt to deliver one event to one endpoint, signed the Standard Webhooks way. The
 * attempt is logged before the request (pending) and updated after it, so the log shows
 * every attempt even if the dispatcher dies mid-request. Neither write waits for the disk: a
 * log row a PostgreSQL crash takes back costs at most a second delivery with the same
 * webhook-id (the lost-delivery sweep finds the delivery unfinished), never a lost one. A 2xx within the time limit is
 * success; anything else throws so BullMQ retries with backoff. Redirects are not followed.
 */
export async function deliver(job: Job<DeliveryJob>, deps: DeliverDeps): Promise<string> {
  const { eventId, endpointId, attemptsBefore = 0 } = DeliveryJob.parse(job.data);
  const attempt = attemptsBefore + job.attemptsMade + 1;
  const webhookId = webhookMessageId(eventId, endpointId);
  const [target] = await deps.db.sql.query<Target>(START_ATTEMPT, [eventId, endpointId, attempt, webhookId]);
  if (!target) return 'skipped';
  const { payload, url: endpointUrl, secret } = target;

  const body = JSON.stringify(payload);
  const timestamp = Math.floor(Date.now() / 1000);
  const started = Date.now();
  let responseStatus: number | null = null;
  let error: string | null = null;
  try {
    const response = await guardedFetch(endpointUrl, {
      ...deps.fetch,
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'docgen-webhooks/1',
        'webhook-id': webhookId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(secret, webhookId, timestamp, body),
      },
    });
    responseStatus = response.status;
    if (response.status < 200 || response.status >= 300) {
      error = response.status >= 300 && response.status < 400 ? `HTTP ${response.status} (redirects are not followed)` : `HTTP ${response.status}`;
    }
  } catch (failure) {
    error = failure instanceof OutboundBlockedError ? `refused: ${failure.message}` : (failure as Error).message;
  }
  const durationMs = Date.now() - started;
  const status = error ? 'failed' : 'succeeded';
  await deps.db.sql.query(FINISH_ATTEMPT, [eventId, endpointId, attempt, status, responseStatus, error, durationMs]);
  deps.onAttempt?.(status, durationMs / 1000);
  deps.logger.info({ eventId, endpointId, webhookId, attempt, status, responseStatus, error, durationMs }, 'webhook attempt');
  if (error) throw new DeliveryFailedError(error);
  return 'succeeded';
}
