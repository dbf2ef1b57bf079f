import type { Queue } from 'bullmq';
import { deliveryJobId, type DeliveryJob } from '@docgen/queue';
import { DELIVERY_JOB_OPTIONS, WEBHOOK_MAX_ATTEMPTS, retryDelayMs, type DeliveryProgress } from '@docgen/webhooks';

/**
 * A BullMQ job on `webhook-deliveries` for a delivery's attempts after the `attemptsMade`
 * already made, the first of them after `delayMs`. Its job id (event, endpoint) keeps it
 * single: adding it again while it waits or runs adds nothing.
 */
export function queueRemainingAttempts(
  queue: Queue<DeliveryJob>,
  delivery: { eventId: string; endpointId: string; type: string },
  attemptsMade: number,
  delayMs: number,
): Promise<unknown> {
  const { eventId, endpointId, type } = delivery;
  return queue.add(
    type,
    { eventId, endpointId, attemptsBefore: attemptsMade },
    { ...DELIVERY_JOB_OPTIONS, jobId: deliveryJobId(delivery), attempts: WEBHOOK_MAX_ATTEMPTS - attemptsMade, delay: Math.max(0, delayMs) },
  );
}

/** Whether a delivery that has no job still has attempts to make. */
export const hasAttemptsLeft = (progress: DeliveryProgress) => !progress.succeeded && progress.made < WEBHOOK_MAX_ATTEMPTS;

/** The wait before a delivery's next attempt, continuing its backoff from its last attempt (by the database's clock, which logged it). */
export const nextAttemptDelayMs = (retryBaseMs: number, progress: DeliveryProgress) =>
  progress.sinceLastMs === null ? 0 : retryDelayMs(retryBaseMs, progress.made) - progress.sinceLastMs;
