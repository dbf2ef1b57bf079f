import { createRedisConnection, waitForRedis } from '@docgen/queue';
import { uniqueId } from '@docgen/testing';
import type { Redis } from 'ioredis';
import { SlidingWindowRateLimiter } from '../src/rate-limiter';

const WINDOW_MS = 60_000;

describe('SlidingWindowRateLimiter', () => {
  let redis: Redis;
  const prefix = `test:${uniqueId()}:`;
  beforeAll(async () => {
    redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'request');
    await waitForRedis(redis, 5_000);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('tells when a slot frees after the limit was lowered below what the window holds, not when the oldest entry leaves', async () => {
    const limiter = new SlidingWindowRateLimiter(redis, prefix, WINDOW_MS);
    const [seconds] = await redis.time();
    const now = Number(seconds) * 1000;
    // Five requests admitted 50, 40, 30, 20 and 10 s ago under a limit of 600; the limit is now 2.
    for (const ago of [50, 40, 30, 20, 10]) await redis.zadd(`${prefix}ratelimit:{org}`, now - ago * 1000, `r${ago}`);
    const decision = await limiter.consume('org', 2, 'next');
    expect(decision.admitted).toBe(false);
    expect(decision.remaining).toBe(0);
    // Below 2 once the requests of 50, 40, 30 and 20 s ago have left: in 40 s (the oldest leaves in 10).
    expect(decision.resetSeconds).toBeGreaterThanOrEqual(39);
    expect(decision.resetSeconds).toBeLessThanOrEqual(40);
  });

  it('tells when the oldest entry leaves, at the limit', async () => {
    const limiter = new SlidingWindowRateLimiter(redis, prefix, WINDOW_MS);
    const [seconds] = await redis.time();
    const now = Number(seconds) * 1000;
    for (const ago of [30, 20]) await redis.zadd(`${prefix}ratelimit:{full}`, now - ago * 1000, `r${ago}`);
    const decision = await limiter.consume('full', 2, 'next');
    expect(decision.admitted).toBe(false);
    expect(decision.resetSeconds).toBeGreaterThanOrEqual(29);
    expect(decision.resetSeconds).toBeLessThanOrEqual(30);
  });
});
