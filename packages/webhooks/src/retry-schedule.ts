import type { JobsOptions } from 'bullmq';

/**
 * The whole retry schedule of a webhook delivery, in one place: 1 try + 3 retries, waits of
 * 1×, 2×, 4× WEBHOOK_RETRY_BASE_MS between them. Publishers queue deliveries with the
 * `webhook` backoff type, so whoever queues one needs no setting; the dispatcher spaces the
 * retries with `deliveryBackoffStrategy`, and its lost-delivery sweep continues a delivery's
 * attempts and waits from where PostgreSQL says they stopped.
 */
export const WEBHOOK_MAX_ATTEMPTS = 4;

export const WEBHOOK_BACKOFF = 'webhook';

/** The wait before the next attempt, after `attemptsMade` attempts. */
export const retryDelayMs = (baseMs: number, attemptsMade: number) => baseMs * 2 ** Math.max(0, attemptsMade - 1);

/**
 * A delivery that succeeded is forgotten at once (webhook_deliveries holds its record): the
 * same event queued again runs and finds it delivered.
 */
export const DELIVERY_JOB_OPTIONS: JobsOptions = {
  attempts: WEBHOOK_MAX_ATTEMPTS,
  backoff: { type: WEBHOOK_BACKOFF },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** BullMQ's `settings.backoffStrategy` for the dispatcher: attempts of a recovered job count from the ones before it. */
export const deliveryBackoffStrategy =
  (baseMs: number) =>
  (attemptsMade: number, type?: string, _error?: Error, job?: { data: { attemptsBefore?: number } }): number =>
    type === WEBHOOK_BACKOFF ? retryDelayMs(baseMs, (job?.data.attemptsBefore ?? 0) + attemptsMade) : 0;
