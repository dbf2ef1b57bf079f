import { setTimeout as sleep } from 'node:timers/promises';
import type { Queue } from 'bullmq';
import type { Logger } from '@docgen/observability';
import type { DeliveryJob, FirstAttempt, FirstAttemptTaker, TakenAttempt } from '@docgen/queue';
import { retryDelayMs, type DeliveryProgress } from '@docgen/webhooks';
import { deferralDelayMs, type EndpointSlots } from './endpoint-cap';
import { hasAttemptsLeft, nextAttemptDelayMs, queueRemainingAttempts } from './remaining-attempts';

export interface FirstAttemptRunnerDeps {
  taker: FirstAttemptTaker;
  /** `webhook-deliveries`: where a retry, or a first attempt deferred by the endpoint cap, is scheduled. */
  retries: Queue<DeliveryJob>;
  slots: EndpointSlots;
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

const TAKE_TIMEOUT_SECONDS = 5;
const REDIS_RETRY_MS = 1_000;
/** After a failed take, Redis may still hold it blocked (a connection it has not seen die) until its timeout. */
const AFTER_FAILED_TAKE_MS = (TAKE_TIMEOUT_SECONDS + 1) * 1_000;

/**
 * Runs the first attempts published on the FirstAttempts list (@docgen/queue), up to
 * `concurrency` at once. An attempt that fails becomes a BullMQ job on `webhook-deliveries`
 * with the attempts left (attempt 2 after WEBHOOK_RETRY_BASE_MS, then as every retry); one
 * whose endpoint is at its in-flight cap becomes a job that asks again later, with all four
 * attempts. An entry leaves this dispatcher's list only once its outcome is written or its
 * job exists, so a dispatcher killed at any point leaves it to be given back (reclaimAbandoned).
 */
export class FirstAttemptRunner {
  private stopping = false;
  private slotFreed: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Each run in flight, with its entry as taken (duplicates included). */
  private readonly inFlight = new Map<Promise<void>, string>();

  constructor(
    private readonly deps: FirstAttemptRunnerDeps,
    /** WEBHOOK_LOCK_MS: other dispatchers give this one's entries back after this long without a beat. */
    private readonly heartbeatMs: number,
  ) {}

  start(): void {
    this.heartbeat = setInterval(
      () => {
        this.deps.taker.beat().catch((error: unknown) => this.deps.logger.warn({ err: error }, 'first-attempt heartbeat not written'));
      },
      Math.max(100, Math.floor(this.heartbeatMs / 3)),
    );
    this.loop = this.takeWhileRunning();
  }

  /** Takes no more, waits for the attempts in flight, then gives back what this dispatcher still holds. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.slotFreed?.();
    this.deps.taker.interrupt(); // an entry moved as the wait was cut stays in this dispatcher's list, given back below
    await this.loop;
    await Promise.allSettled([...this.inFlight.keys()]);
    clearInterval(this.heartbeat);
    await this.deps.taker
      .release()
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'first attempts not given back; another dispatcher takes them once this one is silent'));
  }

  private async takeWhileRunning(): Promise<void> {
    // Registered before the first take: only a registered dispatcher's entries are given back if it dies.
    await this.untilDone(() => this.deps.taker.beat(), 'first-attempt heartbeat not written');
    while (!this.stopping) {
      if (this.inFlight.size >= this.deps.concurrency) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        continue;
      }
      let entry: TakenAttempt | null;
      try {
        entry = await this.deps.taker.take(TAKE_TIMEOUT_SECONDS);
      } catch (error) {
        if (this.stopping) break;
        this.deps.logger.warn({ err: error }, 'first attempts not taken; trying again');
        // The take's answer may have been lost after Redis moved an entry into this dispatcher's
        // list, or Redis may still move one there until the take's own timeout: then give back.
        await sleep(AFTER_FAILED_TAKE_MS);
        if (this.stopping) break; // release gives everything back
        await this.untilDone(() => this.deps.taker.giveBackUnknown([...this.inFlight.values()]), 'first attempts not checked after a failed take');
        continue;
      }
      if (entry) this.track(entry);
    }
  }

  private track(entry: TakenAttempt): void {
    const work = this.run(entry);
    this.inFlight.set(work, entry.raw);
    void work.finally(() => {
      this.inFlight.delete(work);
      const wake = this.slotFreed;
      this.slotFreed = undefined;
      wake?.();
    });
  }

  private async run(entry: TakenAttempt): Promise<void> {
    const { attempt } = entry;
    if (!attempt) this.deps.logger.warn({ entry: entry.raw.slice(0, 200) }, 'first-attempt entry not understood; dropped');
    // An entry whose next step could not be scheduled stays in this dispatcher's list (given back on release).
    const handedOn = !attempt || (await this.attempt(attempt));
    if (handedOn) await this.untilDone(() => this.deps.taker.done(entry), 'first attempt not cleared');
  }

  /** Runs or defers the attempt; false if the job that must follow it could not be queued (only when stopping). */
  private async attempt(attempt: FirstAttempt): Promise<boolean> {
    const release = this.deps.slots.tryAcquire(attempt.endpointId);
    if (!release) {
      const delayMs = deferralDelayMs(0);
      if (!(await this.untilDone(() => this.schedule(attempt, 0, delayMs), 'deferred first attempt not scheduled'))) return false;
      this.deps.onDeferred?.(attempt.endpointId, delayMs);
      return true;
    }
    try {
      if ((await this.deps.deliver(attempt, release)) === 'skipped') return this.afterSkipped(attempt);
      return true;
    } catch {
      // deliver logged the attempt and its outcome; attempts 2 to 4 are BullMQ's
      return this.untilDone(() => this.schedule(attempt, 1, retryDelayMs(this.deps.retryBaseMs, 1)), 'webhook retry not scheduled');
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
    return this.untilDone(() => this.schedule(attempt, progress.made, nextAttemptDelayMs(this.deps.retryBaseMs, progress)), 'webhook retry not scheduled');
  }

  private schedule(attempt: FirstAttempt, attemptsMade: number, delayMs: number): Promise<unknown> {
    return queueRemainingAttempts(this.deps.retries, attempt, attemptsMade, delayMs);
  }

  /**
   * Redis steps are tried again until they succeed: an entry stays in this dispatcher's list
   * until then, and is given back to another only if this one stops or dies first.
   */
  private async untilDone(step: () => Promise<unknown>, warning: string): Promise<boolean> {
    for (;;) {
      try {
        await step();
        return true;
      } catch (error) {
        this.deps.logger.warn({ err: error }, `${warning}; trying again`);
        if (this.stopping) return false;
        await sleep(REDIS_RETRY_MS);
      }
    }
  }
}
