import type { Redis } from 'ioredis';

/** Every script starts with `now`, in ms, from Redis's own clock: replicas with skewed clocks still agree. */
const NOW_FROM_REDIS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

type Command<Reply> = (key: string, ...args: (string | number)[]) => Promise<Reply>;

/**
 * A Redis gate over one sorted set per subject (members are entries, scores are times): a
 * Lua script that checks and records in one atomic call, so a bound holds across gateway
 * replicas, and `release` to take an entry back. The rate limiter and the in-flight slots (HTML
 * imports, live previews) are two scripts on this one wrapper.
 */
export class SortedSetScript<Reply> {
  private readonly command: Command<Reply>;

  constructor(
    private readonly redis: Redis,
    name: string,
    lua: string,
    /** The sorted set, then any other key the script reads (one slot in a Redis Cluster). */
    numberOfKeys = 1,
  ) {
    // defineCommand sends EVALSHA and falls back to EVAL once if the script is not cached.
    redis.defineCommand(name, { numberOfKeys, lua: NOW_FROM_REDIS + lua });
    this.command = (redis as unknown as Record<string, Command<Reply>>)[name]!.bind(redis);
  }

  /** The sorted set's key, then the script's other keys (`numberOfKeys` in all), then its arguments. */
  run(key: string, ...args: (string | number)[]): Promise<Reply> {
    return this.command(key, ...args);
  }

  /** Takes an entry back out of the set. */
  async release(key: string, member: string): Promise<void> {
    await this.redis.zrem(key, member);
  }
}
