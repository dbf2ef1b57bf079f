import { isDatabaseUnavailable, type Database } from '@docgen/db';
import type { Logger } from '@docgen/observability';
import { OutboundBlockedError, guardedFetch, signWebhook, webhookMessageId, type GuardedFetchOptions } from '@docgen/security';
import { startAttempt, type AttemptKey, type AttemptOutcomes } from '@docgen/webhooks';

export interface DeliverDeps {
  db: Database;
  /** Where outcomes are logged, several in one write. */
  outcomes: AttemptOutcomes;
  logger: Logger;
  fetch: Omit<GuardedFetchOptions, 'method' | 'headers' | 'body'>;
  onAttempt?: (outcome: 'succeeded' | 'failed', seconds: number) => void;
}

export class DeliveryFailedError extends Error {
  override name = 'DeliveryFailedError';
}

/**
 * Nothing was sent: the attempt could not be started (its log row not written, PostgreSQL
 * unreachable: isDatabaseUnavailable). It is not one of the delivery's four attempts: the caller makes it again
 * later under the same number (withEndpointSlot, FirstAttemptRunner).
 */
export class AttemptNotMadeError extends Error {
  override name = 'AttemptNotMadeError';
}

/**
 * One attempt (its number in `key`) to deliver one event to one endpoint, signed the
 * Standard Webhooks way. The attempt is logged pending before the request (startAttempt, or
 * the event's own statement for a first attempt) and its outcome after it (AttemptOutcomes,
 * batched; the promise settles only once it is written; `requestDone` is told when the
 * request is over, before that). A 2xx within the time limit is success; anything else
 * throws, and the caller schedules the next attempt. Redirects are not followed.
 */
export async function deliver(key: AttemptKey & { fromList?: boolean }, deps: DeliverDeps, requestDone: () => void = () => undefined): Promise<string> {
  const { eventId, endpointId, attempt, fromList } = key;
  const attemptKey = { eventId, endpointId, attempt };
  const webhookId = webhookMessageId(eventId, endpointId);
  const target = await startAttempt(deps.db, attemptKey, webhookId, fromList).catch((error: unknown) => {
    // Only an outage: an error that would recur (a statement the database refuses) fails the attempt, so it ends.
    if (!isDatabaseUnavailable(error)) {
      deps.logger.error({ err: error, eventId, endpointId, attempt }, 'webhook attempt could not be started; counted as failed');
      throw error;
    }
    deps.logger.warn({ err: error, eventId, endpointId, attempt }, 'webhook attempt not started; it is made again later');
    throw new AttemptNotMadeError(`the attempt could not be started: ${(error as Error).message}`, { cause: error });
  });
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
  requestDone();
  const status = error ? 'failed' : 'succeeded';
  await deps.outcomes.record(attemptKey, { status, responseStatus, error, durationMs });
  deps.onAttempt?.(status, durationMs / 1000);
  deps.logger.info({ eventId, endpointId, webhookId, attempt, status, responseStatus, error, durationMs }, 'webhook attempt');
  if (error) throw new DeliveryFailedError(error);
  return 'succeeded';
}
