/**
 * A fixed number of turns, first come first served, where a waiter whose deadline passes
 * leaves the line. Two uses: the converter's turns on the warm instances (renders beyond one
 * per instance wait here rather than in the pool's own queue, so that a render whose deadline
 * passes stops waiting; a conversion can still wait inside the pool while a crashed instance is
 * replaced, and if its deadline passes meanwhile the pool hands the instance it finally gets on
 * untouched), and the turns of renders that fetch images (heavyRenders).
 */
export class Slots {
  /** Live previews (a person waits for each) go before renders; first come first served within each. */
  private readonly waiting = { urgent: [] as (() => void)[], normal: [] as (() => void)[] };

  constructor(private free: number) {}

  /** A turn, given back by calling what it resolves with; rejects with the signal's reason (a deadline's RenderTimeoutError) if it aborts first. */
  async acquire(until: AbortSignal, urgent = false): Promise<() => void> {
    until.throwIfAborted();
    if (this.free > 0) this.free -= 1;
    else {
      const line = urgent ? this.waiting.urgent : this.waiting.normal;
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          line.splice(line.indexOf(turn), 1);
          reject(until.reason);
        };
        const turn = () => {
          until.removeEventListener('abort', onAbort);
          resolve();
        };
        line.push(turn);
        until.addEventListener('abort', onAbort, { once: true });
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.urgent.shift() ?? this.waiting.normal.shift();
      if (next) next();
      else this.free += 1;
    };
  }
}
