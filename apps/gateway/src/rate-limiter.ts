import type { Redis } from 'ioredis';

/**
 * Sliding-window log in one sorted set per organisation, checked and updated by one Lua
 * call, so the count is exact however many gateway replicas share the Redis. Time comes
 * from Redis itself: replicas with skewed clocks still agree on the window.
 * Returns {admitted (1|0), remaining, ms until the oldest admitted request leaves the window}.
 */
const SLIDING_WINDOW_SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
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

type RedisWithLimiter = Redis & {
  slidingWindow(key: string, limit: number, windowMs: number, member: string): Promise<[number, number, number]>;
};

export class SlidingWindowRateLimiter {
  private readonly redis: RedisWithLimiter;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly windowMs: number,
  ) {
    // defineCommand sends EVALSHA and falls back to EVAL once if the script is not cached.
    redis.defineCommand('slidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_SCRIPT });
    this.redis = redis as RedisWithLimiter;
  }

  async consume(subject: string, limit: number, entryId: string): Promise<RateLimitDecision> {
    const [admitted, remaining, resetMs] = await this.redis.slidingWindow(`${this.keyPrefix}ratelimit:${subject}`, limit, this.windowMs, entryId);
    return { admitted: admitted === 1, limit, remaining: Math.max(0, remaining), resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
  }

  /** Takes back an admitted entry (e.g. a sign-in attempt that turned out to succeed). */
  async release(subject: string, entryId: string): Promise<void> {
    await this.redis.zrem(`${this.keyPrefix}ratelimit:${subject}`, entryId);
  }
}
