import type { Redis } from 'ioredis';
import { SortedSetScript } from './sorted-set-script';

/**
 * Sliding-window log in one sorted set per organisation, checked and updated by one Lua
 * call, so the count is exact however many gateway replicas share the Redis. `now` comes
 * from Redis itself (SortedSetScript): replicas with skewed clocks still agree on the window.
 * Returns {admitted (1|0), remaining, ms until the oldest admitted request leaves the window}.
 */
const SLIDING_WINDOW_SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local admitted = 0
if count < limit then
  redis.call('ZADD', key, now, member)
  count = count + 1
  admitted = 1
end
redis.call('PEXPIRE', key, window)
local reset = window
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {admitted, limit - count, reset}
`;

export interface RateLimitDecision {
  admitted: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a slot frees up (at least 1). */
  resetSeconds: number;
}

export class SlidingWindowRateLimiter {
  private readonly script: SortedSetScript<[number, number, number]>;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly windowMs: number,
  ) {
    this.script = new SortedSetScript(redis, 'slidingWindow', SLIDING_WINDOW_SCRIPT);
  }

  async consume(subject: string, limit: number, entryId: string): Promise<RateLimitDecision> {
    const [admitted, remaining, resetMs] = await this.script.run(this.key(subject), limit, this.windowMs, entryId);
    return { admitted: admitted === 1, limit, remaining: Math.max(0, remaining), resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
  }

  /** Takes back an admitted entry (e.g. a sign-in attempt that turned out to succeed). */
  async release(subject: string, entryId: string): Promise<void> {
    await this.script.release(this.key(subject), entryId);
  }

  private key(subject: string): string {
    return `${this.keyPrefix}ratelimit:${subject}`;
  }
}
