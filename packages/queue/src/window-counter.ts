import type { Redis } from 'ioredis';

/** Counts one event in a fixed window; returns {count so far in this window, ms until it ends}. */
const COUNT_IN_WINDOW = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

type RedisWithCounter = Redis & { docgenCountInWindow(key: string, windowMs: number): Promise<[number, number]> };

/**
 * One atomic count in a fixed window of `windowMs`, shared by every process on the Redis:
 * failed authentications per address, image fetches per organisation.
 */
export async function countInWindow(redis: Redis, key: string, windowMs: number): Promise<{ count: number; msLeft: number }> {
  const client = redis as RedisWithCounter;
  if (!client.docgenCountInWindow) client.defineCommand('docgenCountInWindow', { numberOfKeys: 1, lua: COUNT_IN_WINDOW });
  const [count, msLeft] = await client.docgenCountInWindow(key, windowMs);
  return { count, msLeft };
}
