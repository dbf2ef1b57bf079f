import type { Redis } from 'ioredis';
import { SortedSetScript } from '../sorted-set-script';

/**
 * At most `limit` entries per organisation, each until it is released or its lease ends:
 * one sorted set per organisation (member = the work's id, score = lease end), checked and
 * updated by one Lua call so the bound holds across gateway replicas. A gateway that dies
 * mid-work leaves an entry that the lease ends. `now` comes from Redis itself (SortedSetScript).
 * Returns {taken (1|0), ms until the earliest lease ends}.
 */
const TAKE_SLOT_SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local member = ARGV[3]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZCARD', key) >= limit then
  local earliest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {0, tonumber(earliest[2]) - now}
end
redis.call('ZADD', key, now + lease, member)
redis.call('PEXPIRE', key, lease)
return {1, 0}
`;

/** Work a request waits for on a render worker (HTML imports, live previews), bounded per organisation across gateways. */
export class InFlightSlots {
  private readonly script: SortedSetScript<[number, number]>;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    /** The kind of work, naming its sorted sets (`<prefix><kind>:in-flight:<org>`). */
    private readonly kind: string,
    readonly limit: number,
  ) {
    this.script = new SortedSetScript(redis, 'takeInFlightSlot', TAKE_SLOT_SCRIPT);
  }

  /** True when the slot is taken (release it when done); false when the organisation has `limit` in flight. */
  async take(organizationId: string, workId: string, leaseMs: number): Promise<boolean> {
    const [taken] = await this.script.run(this.key(organizationId), this.limit, leaseMs, workId);
    return taken === 1;
  }

  async release(organizationId: string, workId: string): Promise<void> {
    await this.script.release(this.key(organizationId), workId);
  }

  private key(organizationId: string): string {
    return `${this.keyPrefix}${this.kind}:in-flight:${organizationId}`;
  }
}
