import type { Queue } from 'bullmq';
import type { Logger } from '@docgen/observability';
import { ListRunner, parseAttempt, type DeliveryJob, type FirstAttempt, type ListTaker, type TakenEntry } from '@docgen/queue';
import { retryDelayMs, type DeliveryProgress } from '@docgen/webhooks';
import { AttemptNotMadeError } from './deliver';
import { deferralDelayMs, type EndpointSlots } from './endpoint-cap';
import { hasAttemptsLeft, nextAttemptDelayMs, queueRemainingAttempts } from './remaining-attempts';

export interface FirstAttemptRunnerDeps {
  taker: ListTaker;
  /** `webhook-deliveries`: where a retry, or a first attempt deferred by the endpoint cap, is scheduled. */
  retries: Queue<DeliveryJob>;
  slots: EndpointSlots;
  /** The endpoint's organisation, for its cap (EndpointOrganizations). */
  organizationOf: (endpointId: string) => Promise<string | undefined>;
  /** First attempts in flight at once (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  retryBaseMs: number;
  /** Runs attempt number 1: 'skipped' when there was nothing to send; throws when it failed. */
  deliver: (attempt: FirstAttempt, releaseSlot: () => void) => Promise<string>;
  /** The delivery log's account of a delivery (after a skipped first attempt). */
  progress: (attempt: FirstAttempt) => Promise<DeliveryProgress>;
  logger: Logger;
  onDeferred?: (endpointId: string, delayMs: number) => void;
}

/**
 * Runs the first attempts published on the FirstAttempts list (@docgen/queue), up to
 * `concurrency` at once, through a ListRunner (which takes, beats and gives back). An attempt
 * that fails becomes a BullMQ job on `webhook-deliveries` with the attempts left (attempt 2
 * after WEBHOOK_RETRY_BASE_MS, then as every retry); one whose endpoint, or organisation, is
 * at its in-flight cap becomes a job that asks again later, with all four attempts. An entry leaves this
 * dispatcher's list only once its outcome is written or its job exists, so a dispatcher
 * killed at any point leaves it to be given back (reclaimAbandoned).
 */
export class FirstAttemptRunner {
  private readonly runner: ListRunner;

  constructor(
    private readonly deps: FirstAttemptRunnerDeps,
    /** WEBHOOK_LOCK_MS: other dispatchers give this one's entries back after this long without a beat. */
    heartbeatMs: number,
  ) {
    this.runner = new ListRunner({
      taker: deps.taker,
      concurrency: deps.concurrency,
      heartbeatMs,
      name: 'first attempts',
      logger: deps.logger,
      run: (entry) => this.run(entry),
    });
  }

  start(): void {
    this.runner.start();
  }

  /** Takes no more, waits for the attempts in flight, then gives back what this dispatcher still holds. */
  stop(): Promise<void> {
    return this.runner.stop();
  }

  /** True once the entry may leave this dispatcher's list; false if the job that must follow it could not be queued (only when stopping). */
  private async run(entry: TakenEntry): Promise<boolean> {
    const attempt = parseAttempt(entry);
    if (attempt) return this.attempt(attempt);
    this.deps.logger.warn({ entry: entry.raw.slice(0, 200) }, 'first-attempt entry not understood; dropped');
    return true;
  }

  /** Runs or defers the attempt; false if the job that must follow it could not be queued (only when stopping). */
  private async attempt(attempt: FirstAttempt): Promise<boolean> {
    const release = this.deps.slots.tryAcquire(attempt.endpointId, await this.deps.organizationOf(attempt.endpointId));
    if (!release) {
      const delayMs = deferralDelayMs(0);
      if (!(await this.runner.untilDone(() => this.schedule(attempt, 0, delayMs), 'deferred first attempt not scheduled'))) return false;
      this.deps.onDeferred?.(attempt.endpointId, delayMs);
      return true;
    }
    try {
      if ((await this.deps.deliver(attempt, release)) === 'skipped') return this.afterSkipped(attempt);
      return true;
    } catch (error) {
      // Nothing sent: attempt 1 is still to be made, by a job, as when the endpoint was at its cap.
      if (error instanceof AttemptNotMadeError)
        return this.runner.untilDone(() => this.schedule(attempt, 0, deferralDelayMs(0)), 'webhook first attempt not rescheduled');
      // deliver logged the attempt and its outcome (or why it could not start it); attempts 2 to 4 are BullMQ's
      return this.runner.untilDone(() => this.schedule(attempt, 1, retryDelayMs(this.deps.retryBaseMs, 1)), 'webhook retry not scheduled');
    } finally {
      release();
    }
  }

  /**
   * A first attempt offered again after its attempt ended (a second publish, an entry given
   * back by a dispatcher that died before queueing the retry) stands down; the rest of the
   * delivery is then a job's, queued here unless it exists (the job id keeps it single).
   */
  private async afterSkipped(attempt: FirstAttempt): Promise<boolean> {
    let progress: DeliveryProgress;
    try {
      progress = await this.deps.progress(attempt);
    } catch (error) {
      this.deps.logger.warn({ err: error, eventId: attempt.eventId }, 'delivery log not read after a skipped first attempt; the lost-delivery sweep will look');
      return true;
    }
    if (!hasAttemptsLeft(progress) || progress.made === 0) return true; // delivered, or endpoint deleted
    return this.runner.untilDone(
      () => this.schedule(attempt, progress.made, nextAttemptDelayMs(this.deps.retryBaseMs, progress)),
      'webhook retry not scheduled',
    );
  }

  private schedule(attempt: FirstAttempt, attemptsMade: number, delayMs: number): Promise<unknown> {
    return queueRemainingAttempts(this.deps.retries, attempt, attemptsMade, delayMs);
  }
}
