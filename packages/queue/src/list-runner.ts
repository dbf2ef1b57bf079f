import { setTimeout as sleep } from 'node:timers/promises';
import type { ListTaker, TakenEntry } from './take-list';

export interface ListRunnerOptions {
  taker: ListTaker;
  /** Entries run at once. */
  concurrency: number;
  /** Other takers give this one's entries back after this long without a beat. */
  heartbeatMs: number;
  /** Names the list in warnings ("first attempts", "renders"). */
  name: string;
  logger: { warn(details: object, message: string): void };
  /** Runs one entry; resolves true once it may leave this taker's list (its outcome written, or its next step queued). */
  run(entry: TakenEntry): Promise<boolean>;
}

const TAKE_TIMEOUT_SECONDS = 5;
const REDIS_RETRY_MS = 1_000;
/** After a failed take, Redis may still hold it blocked (a connection it has not seen die) until its timeout. */
const AFTER_FAILED_TAKE_MS = (TAKE_TIMEOUT_SECONDS + 1) * 1_000;

/**
 * Takes entries from a TakeList and runs up to `concurrency` of them at once, beating while
 * it runs. An entry leaves this taker's list only once `run` says so, so a taker killed at any
 * point leaves it to be given back (TakeList.reclaimAbandoned).
 */
export class ListRunner {
  private stopping = false;
  private slotFreed: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Each run in flight, with its entry as taken (duplicates included). */
  private readonly inFlight = new Map<Promise<void>, string>();

  constructor(private readonly options: ListRunnerOptions) {}

  start(): void {
    const { taker, heartbeatMs, name, logger } = this.options;
    this.heartbeat = setInterval(
      () => {
        taker.beat().catch((error: unknown) => logger.warn({ err: error }, `${name}: heartbeat not written`));
      },
      Math.max(100, Math.floor(heartbeatMs / 3)),
    );
    this.heartbeat.unref(); // the take loop and the service's servers keep the process alive, not this
    this.loop = this.takeWhileRunning();
  }

  /**
   * Takes no more, waits for the entries in flight, then gives back what this taker still
   * holds. Entries still running after `drainMs` stay in this taker's list: given back by
   * another taker once this one is silent, marked as taken by one that stopped (giving them
   * back now would have them run twice at once).
   */
  async stop(drainMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.stopping = true;
    this.slotFreed?.();
    this.options.taker.interrupt(); // an entry moved as the wait was cut stays in this taker's list, given back below
    await this.loop;
    const drained = await settledWithin([...this.inFlight.keys()], drainMs);
    clearInterval(this.heartbeat);
    if (!drained) {
      this.options.logger.warn({ running: this.inFlight.size }, `${this.options.name}: still running at shutdown; given back once this taker is silent`);
      return;
    }
    await this.options.taker
      .release()
      .catch((error: unknown) =>
        this.options.logger.warn({ err: error }, `${this.options.name}: not given back; another taker takes them once this one is silent`),
      );
  }

  /**
   * Redis steps are tried again until they succeed (false only once stopping): an entry stays
   * in this taker's list until then, and is given back to another only if this one stops or dies first.
   */
  async untilDone(step: () => Promise<unknown>, warning: string): Promise<boolean> {
    for (;;) {
      try {
        await step();
        return true;
      } catch (error) {
        this.options.logger.warn({ err: error }, `${warning}; trying again`);
        if (this.stopping) return false;
        await sleep(REDIS_RETRY_MS);
      }
    }
  }

  private async takeWhileRunning(): Promise<void> {
    const { taker, concurrency, name, logger } = this.options;
    // Registered before the first take: only a registered taker's entries are given back if it dies.
    await this.untilDone(() => taker.beat(), `${name}: heartbeat not written`);
    while (!this.stopping) {
      if (this.inFlight.size >= concurrency) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        continue;
      }
      let entry: TakenEntry | null;
      try {
        entry = await taker.take(TAKE_TIMEOUT_SECONDS);
      } catch (error) {
        if (this.stopping) break;
        logger.warn({ err: error }, `${name}: not taken; trying again`);
        // The take's answer may have been lost after Redis moved an entry into this taker's
        // list, or Redis may still move one there until the take's own timeout: then give back.
        await sleep(AFTER_FAILED_TAKE_MS);
        if (this.stopping) break; // release gives everything back
        await this.untilDone(() => taker.giveBackUnknown([...this.inFlight.values()]), `${name}: not checked after a failed take`);
        continue;
      }
      if (entry) this.track(entry);
    }
  }

  private track(entry: TakenEntry): void {
    const work = this.runOne(entry);
    this.inFlight.set(work, entry.raw);
    void work.finally(() => {
      this.inFlight.delete(work);
      const wake = this.slotFreed;
      this.slotFreed = undefined;
      wake?.();
    });
  }

  private async runOne(entry: TakenEntry): Promise<void> {
    let handedOn: boolean;
    try {
      handedOn = await this.options.run(entry);
    } catch (error) {
      // run handles its own failures; one that escapes leaves the entry here, given back on release
      this.options.logger.warn({ err: error }, `${this.options.name}: entry not run`);
      return;
    }
    if (handedOn) await this.untilDone(() => this.options.taker.done(entry.raw), `${this.options.name}: entry not cleared`);
  }
}

/** Whether every promise settled within `ms`. */
async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<boolean> {
  if (!Number.isFinite(ms)) {
    await Promise.allSettled(promises);
    return true;
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([Promise.allSettled(promises).then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
