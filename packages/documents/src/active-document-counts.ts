/** How long a count taken in PostgreSQL stands in for a new one (see ActiveDocumentCounts). */
export const ACTIVE_COUNT_FRESH_MS = 250;
const MAX_ORGANIZATIONS = 10_000;

interface Entry {
  /** Documents queued or rendering when PostgreSQL last counted them (this replica's insert of that moment included). */
  counted: number;
  countedAt: number;
  /** Documents this replica inserted, or is inserting, since. */
  since: number;
}

/**
 * MAX_ACTIVE_PER_ORG without a count per request. Counting an organisation's documents in
 * progress costs one index entry each (0.7–2 ms at 10,000, EXPLAIN ANALYZE), paid on every
 * POST while it has a backlog. So each gateway replica keeps the last count per
 * organisation and adds its own inserts to it: while that is fresh (ACTIVE_COUNT_FRESH_MS)
 * and below the cap, a document is inserted without counting; otherwise the insert counts
 * in the same statement and the count is kept.
 *
 * Documents only leave "in progress" between counts, so with one replica the estimate is
 * never below the truth and the cap holds as before. With several, another replica's
 * inserts in the last ACTIVE_COUNT_FRESH_MS are unseen: the cap may be passed by that many,
 * as it may already be by requests in flight. Bulk jobs, merges and retries add documents
 * by other statements; they forget the organisation's count so the next POST counts again.
 */
export class ActiveDocumentCounts {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /** True, and a place taken, when a fresh count plus this replica's inserts since leaves room under `cap` for one more. */
  tryReserve(organizationId: string, cap: number): boolean {
    const entry = this.entries.get(organizationId);
    if (!entry || this.now() - entry.countedAt > ACTIVE_COUNT_FRESH_MS || entry.counted + entry.since >= cap) return false;
    entry.since += 1;
    return true;
  }

  /** A reserved place not used (nothing inserted). */
  release(organizationId: string): void {
    const entry = this.entries.get(organizationId);
    if (entry && entry.since > 0) entry.since -= 1;
  }

  /** What PostgreSQL just counted, including a document inserted by the same statement. */
  record(organizationId: string, active: number): void {
    this.entries.delete(organizationId);
    this.entries.set(organizationId, { counted: active, countedAt: this.now(), since: 0 });
    if (this.entries.size > MAX_ORGANIZATIONS) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Documents were added in another way: count again next time. */
  forget(organizationId: string): void {
    this.entries.delete(organizationId);
  }
}
