import type { Queue } from 'bullmq';
import type { Database } from '@docgen/db';
import { UNFINISHED_DELIVERIES_PAGE, unfinishedDeliveries, type DeliveryPosition, type UnfinishedDelivery } from '@docgen/documents';
import type { Logger } from '@docgen/observability';
import { FIRST_ATTEMPTS_SNAPSHOT_LIMIT, deliveryJobId, type DeliveryJob, type FirstAttempts } from '@docgen/queue';
import { WEBHOOK_MAX_ATTEMPTS as MAX_ATTEMPTS, deliveryProgress } from '@docgen/webhooks';
import { hasAttemptsLeft, nextAttemptDelayMs, queueRemainingAttempts } from './remaining-attempts';

export interface RecoveryDeps {
  db: Database;
  queue: Queue<DeliveryJob>;
  /** First attempts waiting or taken have no BullMQ job and need none. */
  firstAttempts: FirstAttempts;
  logger: Logger;
  retryBaseMs: number;
}

/**
 * Queues again every unfinished delivery that has neither a first attempt on the list nor a
 * live job, continuing its attempt count and its backoff from the last attempt. A failed job
 * (kept 7 days) is not live: its tries can end without logging an attempt (PostgreSQL down
 * for the whole retry schedule), and the delivery would otherwise never be sent. Idempotent and
 * safe with several dispatchers: the job id is (event, endpoint), so a second add of a live
 * job adds nothing. Redis is asked in the order a delivery moves (the lists first, then the
 * job: an entry leaves its list only once its job exists or its outcome is written), and
 * the attempts are read again after Redis answers "neither", because an entry or a job that
 * just succeeded is removed only after its success is written.
 *
 * Each run reads one page of the unfinished deliveries, the next after the last run's, and
 * starts from the oldest again after a page that was not full: a backlog larger than a page
 * (an endpoint down for hours, its retries all live) is read through a page per run instead
 * of hiding every delivery after it.
 */
export class LostDeliverySweep {
  private after: DeliveryPosition | undefined;

  constructor(
    private readonly deps: RecoveryDeps,
    private readonly pageSize = UNFINISHED_DELIVERIES_PAGE,
  ) {}

  /** One run: the number of deliveries queued again. */
  async run(): Promise<number> {
    const candidates = await unfinishedDeliveries(this.deps.db, MAX_ATTEMPTS, this.after, this.pageSize);
    if (candidates.length === 0) {
      this.after = undefined;
      return 0;
    }
    const onTheList = await this.deps.firstAttempts.pendingJobIds();
    if (!onTheList) {
      this.deps.logger.info(
        { limit: FIRST_ATTEMPTS_SNAPSHOT_LIMIT },
        'lost-delivery sweep skipped while a backlog of first attempts waits (Redis evidently has its data)',
      );
      return 0;
    }
    const recovered = await recoverPage(this.deps, candidates, onTheList);
    // Moved on only once the page is done: a run that failed or was skipped reads the same page again.
    this.after = candidates.length < this.pageSize ? undefined : candidates[candidates.length - 1];
    return recovered;
  }
}

/** Failures in one round after which it ends (the store is down, not one delivery odd): the same page is read next round. */
const FAILURES_PER_ROUND = 3;

async function recoverPage(deps: RecoveryDeps, candidates: UnfinishedDelivery[], onTheList: Set<string>): Promise<number> {
  let recovered = 0;
  let failures = 0;
  for (const candidate of candidates) {
    try {
      if (await recoverOne(deps, candidate, onTheList)) recovered += 1;
    } catch (error) {
      // One delivery the sweep cannot handle (its job unreadable) must not hold every delivery after it, round after round.
      if (++failures >= FAILURES_PER_ROUND) throw error;
      deps.logger.warn(
        { err: error, eventId: candidate.event_id, endpointId: candidate.endpoint_id },
        'lost-delivery sweep skipped a delivery it could not check',
      );
    }
  }
  if (recovered > 0)
    deps.logger.warn({ recovered }, 'webhook deliveries without a live job queued again (Redis lost them, or their job failed before logging its attempts)');
  return recovered;
}

/** Queues the delivery's remaining attempts if it has neither a first attempt on the list nor a live job; true if it did. */
async function recoverOne(deps: RecoveryDeps, candidate: UnfinishedDelivery, onTheList: Set<string>): Promise<boolean> {
  const pair = { eventId: candidate.event_id, endpointId: candidate.endpoint_id };
  const jobId = deliveryJobId(pair);
  if (onTheList.has(jobId)) return false;
  const job = await deps.queue.getJob(jobId);
  if (job && job.finishedOn === undefined) return false; // waiting, delayed or running (a completed one is removed at once)
  // Read again after Redis said "neither": an entry or a job that just succeeded is removed only after its success is written.
  let progress = await deliveryProgress(deps.db, pair);
  if (!hasAttemptsLeft(progress)) return false;
  if (job) {
    await deps.queue.remove(jobId); // frees the id; 0 if another dispatcher's new job already runs under it
    // Another dispatcher may have queued this delivery again since our reads, and its job made
    // an attempt and failed before we removed it: count from what the log says now, so that
    // attempt is not sent a second time.
    progress = await deliveryProgress(deps.db, pair);
    if (!hasAttemptsLeft(progress)) return false;
  }
  await queueRemainingAttempts(deps.queue, { ...pair, type: candidate.type }, progress.made, nextAttemptDelayMs(deps.retryBaseMs, progress));
  return true;
}
