/**
 * Group commit for a statement many requests run at once: a call made while no group is
 * waiting on the database goes at once (a lone request waits for nothing), and calls made
 * while `maxInFlight` groups are running gather and go together when one finishes, up to
 * `maxItems` a group. `run` takes a group's items and answers one result per item, in order.
 *
 * When PostgreSQL refuses a group (an error with a SQLSTATE: nothing of it committed),
 * each of its calls is run again alone, so one call's error — a unique index another
 * request won — is that call's alone. Any other failure (the connection lost, perhaps after
 * the commit) fails the whole group as it failed, and nothing is run twice.
 */
export class GroupedStatement<T, R> {
  private waiting: Call<T, R>[] = [];
  private inFlight = 0;

  constructor(
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly maxInFlight = 2,
    private readonly maxItems = 64,
  ) {}

  call(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.sendWhatFits();
    });
  }

  private sendWhatFits(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      const group = this.waiting.splice(0, this.maxItems);
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
      await Promise.all(group.map((call) => this.send([call])));
    }
  }
}

interface Call<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/** An error PostgreSQL answered for the statement (pg's DatabaseError: a severity and a SQLSTATE), not a lost connection or a shutdown. */
function refusedByServer(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof severity === 'string' && typeof code === 'string' && !code.startsWith('08') && !code.startsWith('57');
}
