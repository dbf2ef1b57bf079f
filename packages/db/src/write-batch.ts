/**
 * Gathers writes made close together into one statement: the first item opens a window of
 * `windowMs`, and the window's items are written by one `write` call when it closes (or at
 * once when `maxItems` have gathered). Each `add` settles when the write that carried its
 * item has committed, or rejects with that write's error, so a caller that must not go on
 * before its row is durable (a job completed only after its outcome is logged) still waits
 * for exactly that.
 */
export class WriteBatch<T> {
  private items: { item: T; settle: (error?: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (items: T[]) => Promise<unknown>,
    private readonly windowMs: number,
    private readonly maxItems = 500,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.items.push({ item, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (this.items.length >= this.maxItems) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.windowMs);
    });
  }

  /** Writes what has gathered now (the window's end, or a shutdown). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.items;
    this.items = [];
    if (batch.length === 0) return;
    let failure: unknown;
    try {
      await this.write(batch.map(({ item }) => item));
    } catch (error) {
      failure = error ?? new Error('batched write failed');
    }
    for (const { settle } of batch) settle(failure);
  }
}
