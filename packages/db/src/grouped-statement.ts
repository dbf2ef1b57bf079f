/**
 * Group commit for a statement many requests run at once: a call made while no group is
 * waiting on the database goes at once (a lone request waits for nothing), and calls made
 * while `maxInFlight` groups are running gather and go together when one finishes, up to
 * `maxItems` a group. `run` takes a group's items and answers one result per item, in order.
 *
 * A call still waiting after `maxWaitMs` (PostgreSQL slow, or a lock held) fails with
 * ETIMEDOUT, which the services answer as the database being unavailable, as a request
 * waiting that long for a pooled connection does: calls never pile up behind a stuck
 * statement, and a client is not left to retry a request that will still be inserted.
 *
 * When PostgreSQL refuses a group (an error with a SQLSTATE: nothing of it committed), it
 * is split in halves, run one after the other in the group's place, down to the call it
 * refused, so one call's error — a unique index another request won — is that call's alone
 * and costs a few statements, not one per call. Any other failure (the connection lost,
 * perhaps after the commit) fails the whole group as it failed, and nothing is run twice.
 */
export class GroupedStatement<T, R> {
  private waiting: Call<T, R>[] = [];
  private inFlight = 0;

  constructor(
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly options: { maxInFlight?: number; maxItems?: number; maxWaitMs?: number } = {},
  ) {}

  call(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const call: Call<T, R> = { item, resolve, reject };
      call.timer = setTimeout(() => this.giveUp(call), this.options.maxWaitMs ?? 3_000);
      this.waiting.push(call);
      this.sendWhatFits();
    });
  }

  private giveUp(call: Call<T, R>): void {
    const at = this.waiting.indexOf(call);
    if (at < 0) return; // already sent: it ends with its statement
    this.waiting.splice(at, 1);
    call.reject(new NotSentInTime());
  }

  private sendWhatFits(): void {
    while (this.inFlight < (this.options.maxInFlight ?? 2) && this.waiting.length > 0) {
      const group = this.waiting.splice(0, this.options.maxItems ?? 64);
      for (const call of group) clearTimeout(call.timer);
      this.inFlight += 1;
      void this.send(group).finally(() => {
        this.inFlight -= 1;
        this.sendWhatFits();
      });
    }
  }

  private async send(group: Call<T, R>[]): Promise<void> {
    try {
      const results = await this.run(group.map((call) => call.item));
      if (results.length !== group.length) throw new Error(`a grouped statement answered ${results.length} rows for ${group.length} calls`);
      group.forEach((call, i) => call.resolve(results[i]!));
    } catch (error) {
      if (group.length === 1 || !refusedByServer(error)) {
        for (const call of group) call.reject(error);
        return;
      }
      const half = Math.ceil(group.length / 2);
      await this.send(group.slice(0, half));
      await this.send(group.slice(half));
    }
  }
}

/** A call that waited `maxWaitMs` without being sent: nothing of it reached the database. */
export class NotSentInTime extends Error {
  readonly code = 'ETIMEDOUT';

  constructor() {
    super('The database did not take the statement in time');
  }
}

interface Call<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
  timer?: NodeJS.Timeout;
}

/**
 * An error PostgreSQL answered for the statement (pg's DatabaseError: a severity and a
 * SQLSTATE), not a lost connection (08), a server short of connections or memory (53) or
 * shutting down (57): those would fail the halves too, only more often.
 */
function refusedByServer(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof severity === 'string' && typeof code === 'string' && !['08', '53', '57'].includes(code.slice(0, 2));
}
