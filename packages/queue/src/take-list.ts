import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A plain Redis list whose entries are taken by moving them, atomically, into a list of the
 * taker's own, and removed from there once their work is written: 3 commands an entry (LPUSH,
 * BLMOVE, LREM) where a BullMQ job costs about 40 (add, take, finish, their event streams).
 * A webhook's first attempt (FirstAttempts) and a document's first render (RenderTakes)
 * travel this way; whatever needs a schedule (a retry after a delay) stays a BullMQ job.
 *
 * Nothing is lost when a taker dies: it beats (its id in a sorted set, scored by Redis's
 * clock) while it runs, and any taker gives the entries of one silent for longer than the
 * heartbeat back to the waiting list (`reclaimAbandoned`), each marked once more as taken
 * by a taker that stopped (`takenBefore`), as BullMQ counts a stalled job's takes. A silent
 * id is forgotten only long after, so a take still blocked on its behalf cannot land in a
 * list nobody reads. Every key starts with the list's base: a base with a hash tag keeps the
 * scripts that touch several keys on one Redis Cluster node.
 */

/** Marks an entry given back by `reclaimAbandoned`, once per time: `!!{...}` was taken twice by takers that stopped. */
const RETAKEN_MARK = '!';

const NOW_MS = `local now = redis.call('TIME'); now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)`;

// KEYS: registry. ARGV: id.
const BEAT = `${NOW_MS}
redis.call('ZADD', KEYS[1], now, ARGV[1])`;

// KEYS: waiting, registry. ARGV: taken-list prefix, heartbeat ms, forget-after ms, mark, the caller's own id.
// Every taker silent for longer than the heartbeat gives its taken entries back, marked
// (oldest back at the taking end); one silent for longer than forget-after is also forgotten.
// Never the caller's own: it is running this, so it is alive, only late to beat (a long
// synchronous step held its event loop).
const RECLAIM_ABANDONED = `${NOW_MS}
local waiting, registry = KEYS[1], KEYS[2]
local moved = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', registry, '-inf', now - tonumber(ARGV[2]))) do
  if id ~= ARGV[5] then
    local entry = redis.call('LPOP', ARGV[1] .. id)
    while entry do
      redis.call('RPUSH', waiting, ARGV[4] .. entry)
      moved = moved + 1
      entry = redis.call('LPOP', ARGV[1] .. id)
    end
    if tonumber(redis.call('ZSCORE', registry, id)) < now - tonumber(ARGV[3]) then redis.call('ZREM', registry, id) end
  end
end
return moved`;

// KEYS: waiting, registry. ARGV: taken-list prefix, limit. Every entry waiting or taken, read at one instant; false above the limit.
const EVERY_ENTRY = `
if redis.call('LLEN', KEYS[1]) > tonumber(ARGV[2]) then return false end
local entries = redis.call('LRANGE', KEYS[1], 0, -1)
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  for _, entry in ipairs(redis.call('LRANGE', ARGV[1] .. id, 0, -1)) do entries[#entries + 1] = entry end
end
return entries`;

// KEYS: waiting, registry. ARGV: taken-list prefix. {entries waiting, entries taken}.
const COUNTS = `
local taken = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do taken = taken + redis.call('LLEN', ARGV[1] .. id) end
return {redis.call('LLEN', KEYS[1]), taken}`;

// KEYS: waiting. ARGV: offered-key prefix, ttl ms, then id / entry pairs. Offers each entry not offered within the ttl.
const OFFER_ONCE = `
local offered = 0
for i = 3, #ARGV, 2 do
  if redis.call('SET', ARGV[1] .. ARGV[i], '1', 'NX', 'PX', ARGV[2]) then
    redis.call('LPUSH', KEYS[1], ARGV[i + 1])
    offered = offered + 1
  end
end
return offered`;

// KEYS: taken, waiting. ARGV: the entries this taker is running. Any other entry in its
// list (moved there by a take whose answer was lost) goes back to the taking end.
const GIVE_BACK_UNKNOWN = `
local running = {}
for i = 1, #ARGV do running[ARGV[i]] = (running[ARGV[i]] or 0) + 1 end
local moved = 0
for _, entry in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  if (running[entry] or 0) > 0 then
    running[entry] = running[entry] - 1
  else
    redis.call('LREM', KEYS[1], 1, entry)
    redis.call('RPUSH', KEYS[2], entry)
    moved = moved + 1
  end
end
return moved`;

// KEYS: taken, waiting, registry. ARGV: id. On shutdown: everything back, the id forgotten.
const RELEASE = `
while redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT') do end
redis.call('ZREM', KEYS[3], ARGV[1])`;

const SCRIPTS = {
  docgenTakeListBeat: { numberOfKeys: 1, lua: BEAT },
  docgenTakeListReclaim: { numberOfKeys: 2, lua: RECLAIM_ABANDONED },
  docgenTakeListEvery: { numberOfKeys: 2, lua: EVERY_ENTRY },
  docgenTakeListCounts: { numberOfKeys: 2, lua: COUNTS },
  docgenTakeListOfferOnce: { numberOfKeys: 1, lua: OFFER_ONCE },
  docgenTakeListGiveBack: { numberOfKeys: 2, lua: GIVE_BACK_UNKNOWN },
  docgenTakeListRelease: { numberOfKeys: 3, lua: RELEASE },
};

type ScriptRedis = Redis & { [name in keyof typeof SCRIPTS]: (...args: (string | number)[]) => Promise<unknown> };

function withScripts(redis: Redis): ScriptRedis {
  const client = redis as ScriptRedis;
  for (const [name, script] of Object.entries(SCRIPTS)) {
    if (!(name in client)) client.defineCommand(name, script);
  }
  return client;
}

interface Keys {
  waiting: string;
  registry: string;
  takenPrefix: string;
  offeredPrefix: string;
}

/** An entry as taken: `raw` is the very string in the lists (LREM needs it), `body` what was published. */
export interface TakenEntry {
  raw: string;
  body: string;
  /** How often takers that stopped held it before (given back by `reclaimAbandoned`). */
  takenBefore: number;
}

export function takenEntry(raw: string): TakenEntry {
  let takenBefore = 0;
  while (raw.startsWith(RETAKEN_MARK, takenBefore)) takenBefore++;
  return { raw, body: raw.slice(takenBefore), takenBefore };
}

export class TakeList {
  readonly keys: Keys;
  private readonly redis: ScriptRedis;

  /** `base`: the prefix of every key of this list (a hash tag in it keeps them on one Cluster node). */
  constructor(redis: Redis, base: string) {
    this.redis = withScripts(redis);
    this.keys = { waiting: `${base}:waiting`, registry: `${base}:takers`, takenPrefix: `${base}:taken:`, offeredPrefix: `${base}:offered:` };
  }

  async publish(entries: string[]): Promise<void> {
    if (entries.length > 0) await this.redis.lpush(this.keys.waiting, ...entries);
  }

  /** As `publish`, but an entry whose id was offered within `ttlMs` is not offered again. */
  async publishOnce(entries: { id: string; entry: string }[], ttlMs: number): Promise<void> {
    if (entries.length === 0) return;
    await this.redis.docgenTakeListOfferOnce(this.keys.waiting, this.keys.offeredPrefix, ttlMs, ...entries.flatMap(({ id, entry }) => [id, entry]));
  }

  /** Every entry waiting or taken, read at one instant; undefined when more than `limit` wait. */
  async snapshot(limit: number): Promise<TakenEntry[] | undefined> {
    const entries = (await this.redis.docgenTakeListEvery(this.keys.waiting, this.keys.registry, this.keys.takenPrefix, limit)) as string[] | null;
    return entries?.map(takenEntry);
  }

  /** Entries waiting to be taken, and entries taken and not yet done. */
  async counts(): Promise<{ waiting: number; taken: number }> {
    const [waiting, taken] = (await this.redis.docgenTakeListCounts(this.keys.waiting, this.keys.registry, this.keys.takenPrefix)) as [number, number];
    return { waiting, taken };
  }

  /**
   * Gives the entries of every taker silent for longer than `heartbeatMs` back to the
   * waiting list, marked; how many. Ids silent for 10 × that (at least a minute) are forgotten.
   * `self`: the calling process's own taker, never judged by its own sweep.
   */
  async reclaimAbandoned(heartbeatMs: number, self?: ListTaker): Promise<number> {
    const forgetMs = Math.max(10 * heartbeatMs, 60_000);
    return Number(
      await this.redis.docgenTakeListReclaim(this.keys.waiting, this.keys.registry, this.keys.takenPrefix, heartbeatMs, forgetMs, RETAKEN_MARK, self?.id ?? ''),
    );
  }

  /** A taker's side of the list; `blocking` is a connection of its own (`blockingConnection`: BLMOVE holds it while it waits). */
  taker(blocking: Redis): ListTaker {
    return new ListTaker(this.redis, blocking, this.keys);
  }
}

/**
 * The connection a taker takes entries on. A take in flight when the connection drops fails
 * at once instead of being sent again on reconnect (it would take a second entry while the
 * first answer is lost): the runner then gives back what it does not run.
 */
export function blockingConnection(redis: Redis): Redis {
  const blocking = redis.duplicate({ autoResendUnfulfilledCommands: false, maxRetriesPerRequest: 0 });
  blocking.on('error', () => undefined); // the main connection reports Redis outages
  return blocking;
}

/** One taker's list and heartbeat. */
export class ListTaker {
  readonly id = randomUUID();
  private readonly taken: string;

  constructor(
    private readonly redis: ScriptRedis,
    private readonly blocking: Redis,
    private readonly keys: Keys,
  ) {
    this.taken = keys.takenPrefix + this.id;
  }

  /** Registers this taker, or says it is still alive: call well within the heartbeat others judge it by. */
  async beat(): Promise<void> {
    await this.redis.docgenTakeListBeat(this.keys.registry, this.id);
  }

  /** The next entry, moved into this taker's list; null when none came within `timeoutSeconds`. */
  async take(timeoutSeconds: number): Promise<TakenEntry | null> {
    const raw = await this.blocking.blmove(this.keys.waiting, this.taken, 'RIGHT', 'LEFT', timeoutSeconds);
    return raw === null ? null : takenEntry(raw);
  }

  /** Cuts a wait in `take` short (on shutdown): the blocking connection is closed. */
  interrupt(): void {
    this.blocking.disconnect();
  }

  /** The entry's work has ended and its outcome is written (or it became a BullMQ job). */
  async done(raw: string): Promise<void> {
    await this.redis.lrem(this.taken, 1, raw);
  }

  /**
   * After a take failed: an entry its lost answer had moved here is not among `running`,
   * and goes back to the waiting list; how many did.
   */
  async giveBackUnknown(running: string[]): Promise<number> {
    return Number(await this.redis.docgenTakeListGiveBack(this.taken, this.keys.waiting, ...running));
  }

  /** On shutdown, after the last entry: whatever is still taken goes back, and this taker is forgotten. */
  async release(): Promise<void> {
    await this.redis.docgenTakeListRelease(this.taken, this.keys.waiting, this.keys.registry, this.id);
  }
}
