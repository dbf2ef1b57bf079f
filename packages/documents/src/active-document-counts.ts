/** How long a count taken in PostgreSQL stands in for a new one (see ActiveDocumentCounts). */
export const ACTIVE_COUNT_FRESH_MS = 250;
const MAX_ORGANIZATIONS = 10_000;

interface Entry {
  /** Documents queued or rendering by the newest count recorded (this replica's insert of that statement included); undefined until there is one. */
  counted?: number;
  /** When that count's statement was sent (its snapshot is no older). */
  countedAt: number;
  /** The sequence number of the count recorded, or of the last forget(): an older count arriving later is ignored. */
  sequence: number;
  /** Uncounted inserts: places reserved, and of those, finished (inserted or not) and released (nothing inserted). Only ever grow. */
  reserved: number;
  finished: number;
  released: number;
  /** What of `reserved - released` the recorded count already holds: the inserts that had finished before its statement was sent. */
  heldByCount: number;
}

/** Taken when a counting statement is sent; hands its result to record(). */
export interface CountTicket {
  organizationId: string;
  sequence: number;
  sentAt: number;
  finished: number;
  released: number;
}

/**
 * MAX_ACTIVE_PER_ORG without a count per request. Counting an organisation's documents in
 * progress costs one index entry each (0.7–2 ms at 10,000, EXPLAIN ANALYZE), paid on every
 * POST while it has a backlog. So each gateway replica keeps the last count per
 * organisation and adds its own uncounted inserts to it: while the count is fresh
 * (ACTIVE_COUNT_FRESH_MS) and the sum leaves room under the cap, a document is inserted
 * without counting; otherwise the insert counts in the same statement and the count is kept.
 *
 * The estimate never falls below what this replica can know: an uncounted insert that had not
 * finished when a count was sent is added to that count (counted twice at worst, which only
 * means one more count), a count sent before a newer one or before forget() is ignored, and a
 * count is as old as the moment it was sent. Documents only leave "in progress" between
 * counts, so with one replica the cap holds as before. With several, another replica's inserts
 * since the count are unseen: the cap may be passed by what they accepted within
 * ACTIVE_COUNT_FRESH_MS. Bulk jobs, merges and retries add documents by other statements; they
 * forget the organisation's count so the next POST counts again.
 */
export class ActiveDocumentCounts {
  private readonly entries = new Map<string, Entry>();
  private sequence = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** True, and a place taken, when a fresh count plus this replica's uncounted inserts leaves room under `cap` for one more; then call finishReserved. */
  tryReserve(organizationId: string, cap: number): boolean {
    const entry = this.entries.get(organizationId);
    if (entry?.counted === undefined || this.now() - entry.countedAt > ACTIVE_COUNT_FRESH_MS) return false;
    if (entry.counted + entry.reserved - entry.released - entry.heldByCount >= cap) return false;
    entry.reserved += 1;
    return true;
  }

  /** A reserved place's insert has finished: `inserted` false gives the place back. */
  finishReserved(organizationId: string, inserted: boolean): void {
    const entry = this.entries.get(organizationId);
    // None reserved on this entry: the place was taken on one dropped since (MAX_ORGANIZATIONS).
    if (!entry || entry.finished >= entry.reserved) return;
    entry.finished += 1;
    if (!inserted) entry.released += 1;
  }

  /** Call just before sending a statement that counts. */
  countSent(organizationId: string): CountTicket {
    const entry = this.entry(organizationId);
    return { organizationId, sequence: ++this.sequence, sentAt: this.now(), finished: entry.finished, released: entry.released };
  }

  /** What that statement counted, including a document it inserted itself. */
  record(ticket: CountTicket, active: number): void {
    const entry = this.entries.get(ticket.organizationId);
    if (!entry || ticket.sequence < entry.sequence) return;
    Object.assign(entry, { counted: active, countedAt: ticket.sentAt, sequence: ticket.sequence, heldByCount: ticket.finished - ticket.released });
  }

  /** Documents were added in another way: count again next time, and ignore counts sent before now. */
  forget(organizationId: string): void {
    const entry = this.entries.get(organizationId);
    if (!entry) return;
    Object.assign(entry, { counted: undefined, sequence: ++this.sequence });
  }

  private entry(organizationId: string): Entry {
    let entry = this.entries.get(organizationId);
    if (entry) {
      // Kept in the order of their counts, so the one dropped is the one counted longest ago.
      this.entries.delete(organizationId);
    } else {
      entry = { countedAt: 0, sequence: 0, reserved: 0, finished: 0, released: 0, heldByCount: 0 };
    }
    this.entries.set(organizationId, entry);
    if (this.entries.size > MAX_ORGANIZATIONS) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }
}
