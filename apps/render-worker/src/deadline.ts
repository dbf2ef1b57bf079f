/** The render attempt ran out of time (image fetches, waiting for LibreOffice and converting all count). */
export class RenderTimeoutError extends Error {
  override name = 'RenderTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`The render took longer than ${timeoutMs} ms`);
  }
}

/** The share of an attempt's time its work must have had for running out of it to be the work's own doing. */
const FAIR_TIME_SHARE = 0.5;

/**
 * One render attempt's deadline: RENDER_TIMEOUT_MS after the document went to rendering.
 * Every step asks it how much time is left, and `race` stops waiting for a step when the
 * time is up (the step is left to wind down on its own; its outcome is ignored).
 */
export class Deadline {
  private waitingForTurn = false;
  /** What was left when the work last got its turn. */
  private leftAtTurn: number | undefined;
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

  /** The work waits its turn on shared capacity from now: a LibreOffice instance, a browser page, an image-fetching slot. */
  awaitingTurn(): void {
    this.waitingForTurn = true;
  }

  /** The work has its turn (a no-op unless it was waiting): what is left now is its share of the time. */
  turnTaken(): void {
    if (!this.waitingForTurn) return;
    this.waitingForTurn = false;
    this.leftAtTurn = this.remainingMs();
  }

  /**
   * Out of time through the worker's load rather than the work's own slowness: still waiting
   * for a turn, or the last turn came with less than a fair share (half) of the time left. Such
   * an attempt is asked for again; one that had its share and still ran out is the template's.
   */
  get outOfTimeByLoad(): boolean {
    return this.waitingForTurn || (this.leftAtTurn !== undefined && this.leftAtTurn < this.timeoutMs * FAIR_TIME_SHARE);
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
