import { PrintTimeoutError } from '@docgen/browser-printer';
import { ConversionTimeoutError } from '@docgen/converter';

/** The render attempt ran out of time (image fetches, waiting for LibreOffice and converting all count). */
export class RenderTimeoutError extends Error {
  override name = 'RenderTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`The render took longer than ${timeoutMs} ms`);
  }
}

/** Any step out of time: the attempt's own deadline, LibreOffice's or the browser's. */
export function isTimeout(error: unknown): boolean {
  return error instanceof RenderTimeoutError || error instanceof ConversionTimeoutError || error instanceof PrintTimeoutError;
}

/** The share of an attempt's time its work must have had for running out of it to be the work's own doing. */
const FAIR_TIME_SHARE = 0.5;

/**
 * One render attempt's deadline: RENDER_TIMEOUT_MS after the document went to rendering.
 * Every step asks it how much time is left, and `race` stops waiting for a step when the
 * time is up (the step is left to wind down on its own; its outcome is ignored).
 */
export class Deadline {
  /** When the wait for the current turn began; undefined while the work has its turn. */
  private waitingSince: number | undefined;
  /** Time spent waiting for turns so far. */
  private waitedMs = 0;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly at: number,
    readonly timeoutMs: number,
  ) {
    this.timer = setTimeout(() => this.controller.abort(this.error()), Math.max(0, at - Date.now()));
  }

  static after(start: Date, timeoutMs: number): Deadline {
    return new Deadline(start.getTime() + timeoutMs, timeoutMs);
  }

  /**
   * The work waits its turn on shared capacity (a LibreOffice instance, a browser page, an
   * image-fetching slot, a queue) from `since` (now, unless the wait began earlier).
   */
  awaitingTurn(since = Date.now()): void {
    this.waitingSince ??= since;
  }

  /** The work has its turn (a no-op unless it was waiting): the wait is added up. */
  turnTaken(): void {
    if (this.waitingSince === undefined) return;
    this.waitedMs += Date.now() - this.waitingSince;
    this.waitingSince = undefined;
  }

  /**
   * Out of time through the worker's load rather than the work's own slowness: still waiting
   * for a turn, or more than half of the time went in waiting for turns. Such an attempt is
   * asked for again; work that had its fair share of the time and still ran out is the template's.
   */
  get outOfTimeByLoad(): boolean {
    return this.waitingSince !== undefined || this.waitedMs > this.timeoutMs * FAIR_TIME_SHARE;
  }

  /** `error` is a time-out (isTimeout) that came of the worker's load (outOfTimeByLoad): the attempt is asked for again. */
  timedOutByLoad(error: unknown): boolean {
    return isTimeout(error) && this.outOfTimeByLoad;
  }

  /** Aborted when the deadline passes. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  remainingMs(): number {
    return this.at - Date.now();
  }

  get expired(): boolean {
    return this.signal.aborted || this.remainingMs() <= 0;
  }

  error(): RenderTimeoutError {
    return new RenderTimeoutError(this.timeoutMs);
  }

  /** Throws RenderTimeoutError once the deadline has passed (between steps that cannot be interrupted). */
  check(): void {
    if (this.expired) throw this.error();
  }

  /** `work`'s outcome, or RenderTimeoutError if the deadline passes first. */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.expired) {
      work.catch(() => undefined);
      return Promise.reject(this.error());
    }
    return new Promise<T>((resolve, reject) => {
      const onTimeout = () => reject(this.error());
      this.signal.addEventListener('abort', onTimeout, { once: true });
      work.then(resolve, reject).finally(() => this.signal.removeEventListener('abort', onTimeout));
    });
  }

  /** The attempt is over: drop the timer. */
  dispose(): void {
    clearTimeout(this.timer);
  }
}
