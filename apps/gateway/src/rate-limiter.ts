import type { Redis } from 'ioredis';
import { CURRENT_EPOCH_LUA } from '@docgen/access';
import { SortedSetScript } from './sorted-set-script';

/**
 * Sliding-window log in one sorted set per organisation, checked and updated by one Lua
 * call, so the count is exact however many gateway replicas share the Redis. `now` comes
 * from Redis itself (SortedSetScript): replicas with skewed clocks still agree on the window.
 * Returns {admitted (1|0), remaining, ms until a slot frees (the oldest admitted request leaves the window)}.
 *
 * With a second key, an organisation's key lookup epoch (`KeyLookupEpochs`), it also returns
 * that epoch, and counts nothing when ARGV[4] names another one ({-1, 0, 0, epoch}): the
 * caller's cached lookup is out of date and the request is not yet known to be allowed.
 */
const SLIDING_WINDOW_SCRIPT = `${CURRENT_EPOCH_LUA}
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
local epoch = false
if KEYS[2] then
  epoch = current_epoch(KEYS[2])
  if ARGV[4] ~= '' and ARGV[4] ~= epoch then return {-1, 0, 0, epoch} end
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local admitted = 0
if count < limit then
  redis.call('ZADD', key, now, member)
  count = count + 1
  admitted = 1
end
redis.call('PEXPIRE', key, window)
-- A slot frees when the entry at count - limit leaves: the oldest, unless the limit was lowered
-- below what the window already holds.
local reset = window
local freeing = math.max(0, count - limit)
local entry = redis.call('ZRANGE', key, freeing, freeing, 'WITHSCORES')
if entry[2] then reset = tonumber(entry[2]) + window - now end
if epoch then return {admitted, limit - count, reset, epoch} end
return {admitted, limit - count, reset}
`;

export interface RateLimitDecision {
  admitted: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a slot frees up (at least 1). */
  resetSeconds: number;
}

/** The limiter could not be asked (Redis unreachable, a timeout): the request must not go on. */
export class RateLimiterUnavailable extends Error {
  constructor(cause: unknown) {
    super('rate limiter unavailable', { cause });
  }
}

/** What `consumeAtEpoch` saw: the epoch, and the decision unless the epoch was not the one expected. */
export type EpochCheckedDecision = { epoch: string; decision: RateLimitDecision } | { epoch: string; decision: undefined };

export class SlidingWindowRateLimiter {
  private readonly script: SortedSetScript<[number, number, number]>;
  private readonly epochScript: SortedSetScript<[number, number, number, string]>;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly windowMs: number,
  ) {
    this.script = new SortedSetScript(redis, 'slidingWindow', SLIDING_WINDOW_SCRIPT);
    this.epochScript = new SortedSetScript(redis, 'slidingWindowAtEpoch', SLIDING_WINDOW_SCRIPT, 2);
  }

  async consume(subject: string, limit: number, entryId: string): Promise<RateLimitDecision> {
    const [admitted, remaining, resetMs] = await this.script.run(this.key(subject), limit, this.windowMs, entryId);
    return this.decision(admitted, limit, remaining, resetMs);
  }

  /**
   * `consume`, in the same round trip reading the epoch at `epochKey`; counted only when that
   * epoch is `expected` (undefined: whatever it is).
   */
  async consumeAtEpoch(subject: string, limit: number, entryId: string, epochKey: string, expected: string | undefined): Promise<EpochCheckedDecision> {
    const [admitted, remaining, resetMs, epoch] = await this.epochScript.run(this.key(subject), epochKey, limit, this.windowMs, entryId, expected ?? '');
    return { epoch, decision: admitted === -1 ? undefined : this.decision(admitted, limit, remaining, resetMs) };
  }

  /** Takes back an admitted entry (e.g. a sign-in attempt that turned out to succeed). */
  async release(subject: string, entryId: string): Promise<void> {
    await this.script.release(this.key(subject), entryId);
  }

  private decision(admitted: number, limit: number, remaining: number, resetMs: number): RateLimitDecision {
    return { admitted: admitted === 1, limit, remaining: Math.max(0, remaining), resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
  }

  private key(subject: string): string {
    return `${this.keyPrefix}ratelimit:{${subject}}`; // a hash tag: one Cluster slot with the subject's key lookup epoch
  }
}
