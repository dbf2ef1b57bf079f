import { findApiKey, keyLookupEpochKey, type ApiKeyRow } from '@docgen/access';
import type { Database } from '@docgen/db';
import { RateLimiterUnavailable, type RateLimitDecision, type SlidingWindowRateLimiter } from './rate-limiter';

/**
 * A cached lookup older than this goes back to PostgreSQL even when its epoch has not moved:
 * it bounds what a change the epoch never heard of (SQL typed by hand, a write whose epoch
 * could not be moved and was not repeated) can leave behind.
 */
export const KEY_LOOKUP_MAX_AGE_MS = 60_000;

/** Never an epoch (those are digits): counts nothing and returns the epoch, to look the key up again. */
const LOOK_UP_AGAIN = 'look-up-again';

interface Entry {
  key: ApiKeyRow;
  /** The epoch read before `key` was looked up; undefined when none was (a first lookup), so it is not trusted yet. */
  epoch: string | undefined;
  lookedUpAt: number;
}

export interface AdmittedKey {
  /** The lookup (shared with the cache: `last_used_at` may be moved on it). */
  key: ApiKeyRow;
  /** The request's rate-limit decision, taken in the same Redis round trip that checked the epoch. */
  decision: RateLimitDecision;
}

const live = (key: ApiKeyRow, now: Date) => !key.revoked_at && (!key.expires_at || key.expires_at > now);

/**
 * A bounded per-replica cache of API-key lookups (key hash → `findApiKey`'s row), which a
 * revocation reaches on the very next request on every replica. Every API-key request runs
 * the rate-limit script in Redis anyway; that one round trip also reads the organisation's key
 * lookup epoch, which every write behind `findApiKey` moves after its commit and before it
 * answers (`KeyLookupEpochs` in `@docgen/access`). A cached row is used only while its stamp —
 * the epoch read *before* its lookup — is still the current epoch; otherwise the script counts
 * nothing, the key is looked up again and the request judged on what PostgreSQL says now.
 *
 * - A cache hit: one Redis round trip (the rate limit, as before) and no PostgreSQL.
 * - A first lookup (cold cache): PostgreSQL then the script, as without the cache. Its row is
 *   kept without a stamp (no epoch was read before it), which gives the next request the
 *   organisation to ask the epoch of; that request looks the key up once more and stamps it.
 * - An epoch that moved, or a row older than `KEY_LOOKUP_MAX_AGE_MS`: the script (counting
 *   nothing), PostgreSQL, the script again.
 *
 * Redis unreachable: the script fails, so a cached row is never used without a fresh epoch and
 * the request gets the limiter's 503, as before. When the connection drops, `clear` forgets
 * everything: Redis may come back with older data (a snapshot), epochs included.
 * Unknown, revoked and expired keys are never kept, so a failed attempt always costs its
 * PostgreSQL lookup and counts against the address (AuthFailureThrottle), as before.
 */
export class ApiKeyLookups {
  /** In least recently used order (a Map iterates in insertion order; a hit moves to the end). */
  private readonly entries = new Map<string, Entry>();
  /** Moved by `clear`: a lookup in flight across it keeps its row to itself. */
  private generation = 0;

  constructor(
    private readonly db: Database,
    private readonly limiter: SlidingWindowRateLimiter,
    private readonly keyPrefix: string,
    /** Rows kept at most (0: none, every request looks its key up). */
    private readonly capacity: number,
    private readonly maxAgeMs = KEY_LOOKUP_MAX_AGE_MS,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.generation += 1;
  }

  /**
   * The live key with this hash, counted against its organisation's rate limit; undefined for
   * an unknown, revoked or expired key (nothing counted). Throws RateLimiterUnavailable when
   * Redis cannot be asked, and PostgreSQL's errors as they are.
   */
  async admit(keyHash: string, now: Date, entryId: string): Promise<AdmittedKey | undefined> {
    const cached = this.entries.get(keyHash);
    if (!cached || !live(cached.key, now)) return this.lookUp(keyHash, now, entryId, undefined);
    const trusted = cached.epoch !== undefined && now.getTime() - cached.lookedUpAt < this.maxAgeMs;
    const generation = this.generation;
    const { epoch, decision } = await this.count(cached.key, entryId, trusted ? cached.epoch : LOOK_UP_AGAIN);
    // The connection dropped while the script was out: ioredis sends it again on reconnect, to
    // a Redis that may have come back with an older epoch, so its answer vouches for nothing.
    if (generation !== this.generation) return this.lookUp(keyHash, now, entryId, undefined);
    if (!decision) return this.lookUp(keyHash, now, entryId, epoch);
    this.entries.delete(keyHash);
    this.entries.set(keyHash, cached);
    return { key: cached.key, decision };
  }

  /** `epoch`: read before this lookup began, so the row is at least as new as every write that moved it there. */
  private async lookUp(keyHash: string, now: Date, entryId: string, epoch: string | undefined): Promise<AdmittedKey | undefined> {
    const generation = this.generation;
    const key = await findApiKey(this.db, keyHash);
    if (!key || !live(key, now)) {
      this.entries.delete(keyHash);
      return undefined;
    }
    const { decision } = await this.count(key, entryId, undefined);
    if (generation === this.generation) this.remember(keyHash, { key, epoch, lookedUpAt: now.getTime() });
    return { key, decision: decision! };
  }

  private async count(key: ApiKeyRow, entryId: string, expectedEpoch: string | undefined) {
    const epochKey = keyLookupEpochKey(this.keyPrefix, key.organization_id);
    try {
      return await this.limiter.consumeAtEpoch(key.organization_id, key.rate_limit_per_minute, entryId, epochKey, expectedEpoch);
    } catch (error) {
      throw new RateLimiterUnavailable(error);
    }
  }

  private remember(keyHash: string, entry: Entry): void {
    if (this.capacity === 0) return;
    this.entries.delete(keyHash);
    this.entries.set(keyHash, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
