import type { Redis } from 'ioredis';
import { keyLookupsUnreachable } from '../errors';

/**
 * An organisation's key lookup epoch: a counter in Redis that moves whenever what
 * `findApiKey` returns for one of its keys changes. Gateways keep key lookups in a cache of
 * their own, each stamped with the epoch read before its lookup, and the rate-limit script
 * that every API-key request already runs returns the current epoch in the same round trip:
 * a stamp that differs sends the key back to PostgreSQL before the request goes on. So every
 * write behind that statement (a revoke, a rate limit) moves the epoch after its commit and
 * before it answers (`KeyLookupEpochs.bump`), and the next request on any replica sees it.
 *
 * Per organisation rather than global: a revoke sends only that organisation's keys back to
 * PostgreSQL, and the epoch can share a Redis Cluster slot with the organisation's rate-limit
 * window (one script may only touch keys of one slot).
 */
// The organisation in braces: a Redis Cluster hash tag, shared with its rate-limit window's key.
export const keyLookupEpochKey = (keyPrefix: string, organizationId: string): string => `${keyPrefix}api-key-epoch:{${organizationId}}`;

/**
 * Lua: `current_epoch(key)`, the epoch as a string of digits. An epoch that is missing (never
 * set, flushed, evicted, lost with Redis's data) starts again from Redis's clock in
 * microseconds: past every value it held before (each was its start plus one per write), so a
 * stamp taken before the loss can never match again. The rate-limit script and `bump` share it.
 */
export const CURRENT_EPOCH_LUA = `
local function current_epoch(key)
  local epoch = redis.call('GET', key)
  if epoch then return epoch end
  local clock = redis.call('TIME')
  epoch = clock[1] .. string.format('%06d', tonumber(clock[2]))
  redis.call('SET', key, epoch)
  return epoch
end
`;

const BUMP_LUA = `${CURRENT_EPOCH_LUA}
current_epoch(KEYS[1])
return redis.call('INCR', KEYS[1])
`;

type RedisWithBump = Redis & { docgenBumpKeyLookupEpoch(key: string): Promise<number> };

/** Moves organisations' key lookup epochs; the writes of this package call it after they commit. */
export class KeyLookupEpochs {
  private readonly redis: RedisWithBump;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
  ) {
    this.redis = redis as RedisWithBump;
    if (!this.redis.docgenBumpKeyLookupEpoch) redis.defineCommand('docgenBumpKeyLookupEpoch', { numberOfKeys: 1, lua: BUMP_LUA });
  }

  /**
   * After the write's commit, before its answer. If Redis cannot be reached this throws
   * `key_lookups_unreachable` and the write is not answered as done: the change is in
   * PostgreSQL, but a gateway may still use its cached lookup (for at most the cache's maximum
   * age); repeating the write (each one here is idempotent) moves the epoch.
   */
  async bump(organizationId: string): Promise<void> {
    await this.redis.docgenBumpKeyLookupEpoch(keyLookupEpochKey(this.keyPrefix, organizationId)).catch(() => {
      throw keyLookupsUnreachable();
    });
  }
}
