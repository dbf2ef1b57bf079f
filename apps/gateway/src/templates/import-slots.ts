import type { Redis } from 'ioredis';

/**
 * At most `limit` entries per organisation, each until it is released or its lease ends:
 * one sorted set per organisation (member = import id, score = lease end), checked and
 * updated by one Lua call so the bound holds across gateway replicas. A gateway that dies
 * mid-import leaves an entry that the lease ends. Time comes from Redis itself.
 * Returns {taken (1|0), ms until the earliest lease ends}.
 */
const TAKE_SLOT_SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local member = ARGV[3]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZCARD', key) >= limit then
  local earliest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {0, tonumber(earliest[2]) - now}
end
redis.call('ZADD', key, now + lease, member)
redis.call('PEXPIRE', key, lease)
return {1, 0}
`;

type RedisWithSlots = Redis & {
  takeImportSlot(key: string, limit: number, leaseMs: number, member: string): Promise<[number, number]>;
};

export class ImportSlots {
  private readonly redis: RedisWithSlots;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly limit: number,
  ) {
    redis.defineCommand('takeImportSlot', { numberOfKeys: 1, lua: TAKE_SLOT_SCRIPT });
    this.redis = redis as RedisWithSlots;
  }

  /** True when the slot is taken (release it when done); false when the organisation has `limit` in flight. */
  async take(organizationId: string, importId: string, leaseMs: number): Promise<boolean> {
    const [taken] = await this.redis.takeImportSlot(this.key(organizationId), this.limit, leaseMs, importId);
    return taken === 1;
  }

  async release(organizationId: string, importId: string): Promise<void> {
    await this.redis.zrem(this.key(organizationId), importId);
  }

  private key(organizationId: string): string {
    return `${this.keyPrefix}template-imports:in-flight:${organizationId}`;
  }
}
