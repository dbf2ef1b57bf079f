import type { Job } from 'bullmq';
import type { Database } from '@docgen/db';
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

/**
 * One attempt to deliver one event to one endpoint, signed the Standard Webhooks way. The
 * attempt is logged before the request (pending) and updated after it, so the log shows
 * every attempt even if the dispatcher dies mid-request. A 2xx within the time limit is
 * success; anything else throws so BullMQ retries with backoff. Redirects are not followed.
 */
export async function deliver(job: Job<DeliveryJob>, deps: DeliverDeps): Promise<string> {
  const { eventId, endpointId } = DeliveryJob.parse(job.data);
  const [event, endpoint] = await Promise.all([
    deps.db.outboxEvent.findUnique({ where: { id: eventId } }),
    deps.db.webhookEndpoint.findUnique({ where: { id: endpointId } }),
  ]);
  if (!event || !endpoint || endpoint.deletedAt) return 'skipped';

  const attempt = job.attemptsMade + 1;
  const webhookId = webhookMessageId(eventId, endpointId);
  const payload = event.payload as { job_id: string; event: string };
  const key = { eventId_endpointId_attempt: { eventId, endpointId, attempt } };
  await deps.db.webhookDelivery.upsert({
    where: key,
    create: { eventId, endpointId, attempt, event: payload.event, jobId: payload.job_id, webhookId, status: 'pending' },
    update: { status: 'pending', responseStatus: null, error: null, durationMs: null },
  });

  const body = JSON.stringify(event.payload);
  const timestamp = Math.floor(Date.now() / 1000);
  const started = Date.now();
  let responseStatus: number | null = null;
  let error: string | null = null;
  try {
    const response = await guardedFetch(endpoint.url, {
      ...deps.fetch,
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'docgen-webhooks/1',
        'webhook-id': webhookId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(endpoint.secret, webhookId, timestamp, body),
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
  await deps.db.webhookDelivery.update({ where: key, data: { status, responseStatus, error, durationMs } });
  deps.onAttempt?.(status, durationMs / 1000);
  deps.logger.info({ eventId, endpointId, webhookId, attempt, status, responseStatus, error, durationMs }, 'webhook attempt');
  if (error) throw new DeliveryFailedError(error);
  return 'succeeded';
}
