import type { Redis } from 'ioredis';

/** Counts one failure in a fixed window per address; returns {count, ms until the window ends}. */
const COUNT_FAILURE_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

type RedisWithCounter = Redis & { countAuthFailure(key: string, windowMs: number): Promise<[number, number]> };

/** Blocked addresses remembered per replica; more than this and the oldest are forgotten. */
const MAX_REMEMBERED = 10_000;

/**
 * Throttles repeated failed API-key authentications per client address, before any
 * database query. Failures are counted in Redis (shared by every gateway replica); an
 * address over the limit is then remembered in this replica's memory until its window
 * ends, so while it is blocked its requests cost neither PostgreSQL nor Redis. A
 * successful request never touches Redis here.
 */
export class AuthFailureThrottle {
  private readonly redis: RedisWithCounter;
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly limit: number,
    private readonly windowMs: number,
  ) {
    redis.defineCommand('countAuthFailure', { numberOfKeys: 1, lua: COUNT_FAILURE_SCRIPT });
    this.redis = redis as RedisWithCounter;
  }

  /** Seconds the address must wait, or 0 when it may try. */
  retryAfterSeconds(address: string): number {
    const until = this.blockedUntil.get(address);
    if (until === undefined) return 0;
    const left = until - Date.now();
    if (left <= 0) {
      this.blockedUntil.delete(address);
      return 0;
    }
    return Math.ceil(left / 1000);
  }

  /** Records a failed authentication; Redis being down only means this one is not counted. */
  async recordFailure(address: string): Promise<void> {
    const [count, ttlMs] = await this.redis.countAuthFailure(`${this.keyPrefix}authfail:${address}`, this.windowMs);
    if (count >= this.limit) this.block(address, Date.now() + ttlMs);
  }

  private block(address: string, until: number): void {
    if (this.blockedUntil.size >= MAX_REMEMBERED) {
      const now = Date.now();
      for (const [known, end] of this.blockedUntil) if (end <= now) this.blockedUntil.delete(known);
      if (this.blockedUntil.size >= MAX_REMEMBERED) this.blockedUntil.delete(this.blockedUntil.keys().next().value!);
    }
    this.blockedUntil.set(address, until);
  }
}
