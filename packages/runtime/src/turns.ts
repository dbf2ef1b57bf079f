/**
 * A fixed number of turns, first come first served, each given back by calling what `acquire`
 * resolves with (a second call does nothing). A waiter whose `until` signal aborts leaves the
 * line and rejects with the signal's reason; `urgent` waiters (a person waits for each) go
 * before the others.
 */
export class Turns {
  private readonly waiting = { urgent: [] as (() => void)[], normal: [] as (() => void)[] };
  private taken = 0;

  constructor(private readonly size: number) {}

  /** Whether any turn is taken (a waiter implies every turn is). */
  get busy(): boolean {
    return this.taken > 0;
  }

  async acquire({ until, urgent = false }: { until?: AbortSignal; urgent?: boolean } = {}): Promise<() => void> {
    until?.throwIfAborted();
    if (this.taken < this.size) this.taken += 1;
    else await this.wait(urgent ? this.waiting.urgent : this.waiting.normal, until); // handed the turn of one that ends
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.urgent.shift() ?? this.waiting.normal.shift();
      if (next) next();
      else this.taken -= 1;
    };
  }

  private wait(line: (() => void)[], until: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        line.splice(line.indexOf(turn), 1);
        reject(until?.reason);
      };
      const turn = () => {
        until?.removeEventListener('abort', onAbort);
        resolve();
      };
      line.push(turn);
      until?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** `size` turns for each key (an organisation, say), kept only while one of them is taken. */
export class TurnsByKey {
  private readonly byKey = new Map<string, Turns>();

  constructor(private readonly size: number) {}

  async acquire(key: string, options?: { until?: AbortSignal }): Promise<() => void> {
    options?.until?.throwIfAborted(); // before an entry is made that no release would take away
    let turns = this.byKey.get(key);
    if (!turns) this.byKey.set(key, (turns = new Turns(this.size)));
    const own = turns;
    const release = await own.acquire(options);
    return () => {
      release();
      if (!own.busy && this.byKey.get(key) === own) this.byKey.delete(key);
    };
  }

  /** Keys holding a turn now (for tests and gauges). */
  get keys(): number {
    return this.byKey.size;
  }
}
