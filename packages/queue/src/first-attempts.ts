import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { deliveryJobId } from './queues';

/**
 * A webhook delivery's first attempt travels on a plain Redis list instead of a BullMQ job
 * of its own: a BullMQ job costs Redis about 40 commands (add, take, finish, their event
 * streams), an entry here 3 (LPUSH by the publisher, BLMOVE by the dispatcher that takes it,
 * LREM once its outcome is written). Only what needs a schedule becomes a BullMQ job on
 * `webhook-deliveries`: a retry after a failed first attempt, and a first attempt deferred
 * because its endpoint was at its in-flight cap.
 *
 * Nothing is lost when a dispatcher dies: it takes an entry by moving it, atomically, into a
 * list of its own, and beats (its id in a sorted set, scored by Redis's clock) while it
 * runs. Any dispatcher gives the entries of one silent for longer than its heartbeat back
 * to the waiting list (`reclaimAbandoned`), where their attempt runs again under its own
 * number, as a BullMQ job whose lock expired would; a silent id is forgotten only long
 * after, so a take still blocked on its behalf cannot land in a list nobody reads. All keys
 * share one hash tag, so the scripts that touch several of them run on one Redis Cluster node.
 */

export const FirstAttempt = z.object({ eventId: z.uuid(), endpointId: z.uuid(), type: z.string() });
export type FirstAttempt = z.output<typeof FirstAttempt>;

/** The entry as it sits in the lists (LREM needs the very string that was taken). */
export interface TakenAttempt {
  raw: string;
  /** Undefined for an entry that is not one of ours: it is dropped. */
  attempt: FirstAttempt | undefined;
}

/** The lost-delivery sweep reads the lists whole only below this many waiting entries (a longer list is a backlog, not a loss). */
export const FIRST_ATTEMPTS_SNAPSHOT_LIMIT = 10_000;
/** A sweep's second publish of an event within this long offers nothing new (sweeps of several workers at once). */
const OFFERED_TTL_MS = 10 * 60 * 1000;

const NOW_MS = `local now = redis.call('TIME'); now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)`;

// KEYS: registry. ARGV: id.
const BEAT = `${NOW_MS}
redis.call('ZADD', KEYS[1], now, ARGV[1])`;

// KEYS: waiting, registry. ARGV: taken-list prefix, heartbeat ms, forget-after ms.
// Every dispatcher silent for longer than the heartbeat gives its taken entries back
// (oldest back at the taking end); one silent for longer than forget-after is also forgotten.
const RECLAIM_ABANDONED = `${NOW_MS}
local waiting, registry = KEYS[1], KEYS[2]
local moved = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', registry, '-inf', now - tonumber(ARGV[2]))) do
  while redis.call('LMOVE', ARGV[1] .. id, waiting, 'LEFT', 'RIGHT') do moved = moved + 1 end
  if tonumber(redis.call('ZSCORE', registry, id)) < now - tonumber(ARGV[3]) then redis.call('ZREM', registry, id) end
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

// KEYS: waiting. ARGV: offered-key prefix, ttl ms, then job id / entry pairs. Offers each entry not offered within the ttl.
const OFFER_ONCE = `
local offered = 0
for i = 3, #ARGV, 2 do
  if redis.call('SET', ARGV[1] .. ARGV[i], '1', 'NX', 'PX', ARGV[2]) then
    redis.call('LPUSH', KEYS[1], ARGV[i + 1])
    offered = offered + 1
  end
end
return offered`;

// KEYS: taken, waiting. ARGV: the entries this dispatcher is running. Any other entry in its
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
  docgenFirstAttemptBeat: { numberOfKeys: 1, lua: BEAT },
  docgenFirstAttemptReclaim: { numberOfKeys: 2, lua: RECLAIM_ABANDONED },
  docgenFirstAttemptEvery: { numberOfKeys: 2, lua: EVERY_ENTRY },
  docgenFirstAttemptOfferOnce: { numberOfKeys: 1, lua: OFFER_ONCE },
  docgenFirstAttemptGiveBack: { numberOfKeys: 2, lua: GIVE_BACK_UNKNOWN },
  docgenFirstAttemptRelease: { numberOfKeys: 3, lua: RELEASE },
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

const entryOf = (event: { id: string; type: string }, endpointId: string) => JSON.stringify({ eventId: event.id, endpointId, type: event.type });

export class FirstAttempts {
  private readonly keys: Keys;

  constructor(
    private readonly redis: Redis,
    redisKeyPrefix: string,
  ) {
    const base = `${redisKeyPrefix}{first-attempts}`;
    this.keys = { waiting: `${base}:waiting`, registry: `${base}:dispatchers`, takenPrefix: `${base}:taken:`, offeredPrefix: `${base}:offered:` };
  }

  /** One entry per endpoint, in one command: the publisher's fast path, right after the event's commit. */
  async publish(event: { id: string; type: string }, endpointIds: string[]): Promise<void> {
    if (endpointIds.length === 0) return;
    await this.redis.lpush(this.keys.waiting, ...endpointIds.map((endpointId) => entryOf(event, endpointId)));
  }

  /**
   * As `publish`, but a delivery offered this way within the hour is not offered again: the
   * outbox sweeps of several workers read the same unpublished events at once.
   */
  async publishOnce(event: { id: string; type: string }, endpointIds: string[]): Promise<void> {
    if (endpointIds.length === 0) return;
    const pairs = endpointIds.flatMap((endpointId) => [deliveryJobId({ eventId: event.id, endpointId }), entryOf(event, endpointId)]);
    await withScripts(this.redis).docgenFirstAttemptOfferOnce(this.keys.waiting, this.keys.offeredPrefix, OFFERED_TTL_MS, ...pairs);
  }

  /**
   * The job ids (event, endpoint) of every first attempt waiting or taken: they have no
   * BullMQ job and need none. Undefined when more than FIRST_ATTEMPTS_SNAPSHOT_LIMIT wait.
   */
  async pendingJobIds(): Promise<Set<string> | undefined> {
    const entries = (await withScripts(this.redis).docgenFirstAttemptEvery(
      this.keys.waiting,
      this.keys.registry,
      this.keys.takenPrefix,
      FIRST_ATTEMPTS_SNAPSHOT_LIMIT,
    )) as string[] | null;
    if (!entries) return undefined;
    const ids = new Set<string>();
    for (const raw of entries) {
      const attempt = parseEntry(raw);
      if (attempt) ids.add(deliveryJobId(attempt));
    }
    return ids;
  }

  /**
   * Gives the entries of every dispatcher silent for longer than `heartbeatMs` back to the
   * waiting list; how many. Ids silent for 10 × that (at least a minute) are forgotten.
   */
  async reclaimAbandoned(heartbeatMs: number): Promise<number> {
    const forgetMs = Math.max(10 * heartbeatMs, 60_000);
    return Number(await withScripts(this.redis).docgenFirstAttemptReclaim(this.keys.waiting, this.keys.registry, this.keys.takenPrefix, heartbeatMs, forgetMs));
  }

  /** A dispatcher's side of the lists; `blocking` is a connection of its own (`blockingConnection`: BLMOVE holds it while it waits). */
  taker(blocking: Redis): FirstAttemptTaker {
    return new FirstAttemptTaker(withScripts(this.redis), blocking, this.keys);
  }
}

/**
 * The connection a dispatcher takes entries on. A take in flight when the connection drops
 * fails at once instead of being sent again on reconnect (it would take a second entry while
 * the first answer is lost): the runner then gives back what it does not run.
 */
export function blockingConnection(redis: Redis): Redis {
  const blocking = redis.duplicate({ autoResendUnfulfilledCommands: false, maxRetriesPerRequest: 0 });
  blocking.on('error', () => undefined); // the main connection reports Redis outages
  return blocking;
}

const parseEntry = (raw: string): FirstAttempt | undefined => {
  try {
    const parsed = FirstAttempt.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

/** One dispatcher's taken list and heartbeat. */
export class FirstAttemptTaker {
  readonly id = randomUUID();
  private readonly taken: string;

  constructor(
    private readonly redis: ScriptRedis,
    private readonly blocking: Redis,
    private readonly keys: Keys,
  ) {
    this.taken = keys.takenPrefix + this.id;
  }

  /** Registers this dispatcher, or says it is still alive: call well within the heartbeat others judge it by. */
  async beat(): Promise<void> {
    await this.redis.docgenFirstAttemptBeat(this.keys.registry, this.id);
  }

  /** The next entry, moved into this dispatcher's list; null when none came within `timeoutSeconds`. */
  async take(timeoutSeconds: number): Promise<TakenAttempt | null> {
    const raw = await this.blocking.blmove(this.keys.waiting, this.taken, 'RIGHT', 'LEFT', timeoutSeconds);
    return raw === null ? null : { raw, attempt: parseEntry(raw) };
  }

  /** Cuts a wait in `take` short (on shutdown): the blocking connection is closed. */
  interrupt(): void {
    this.blocking.disconnect();
  }

  /** The entry's attempt has ended and its outcome is written (or it became a BullMQ job). */
  async done(entry: TakenAttempt): Promise<void> {
    await this.redis.lrem(this.taken, 1, entry.raw);
  }

  /**
   * After a take failed: an entry its lost answer had moved here is not among `running`,
   * and goes back to the waiting list; how many did.
   */
  async giveBackUnknown(running: string[]): Promise<number> {
    return Number(await this.redis.docgenFirstAttemptGiveBack(this.taken, this.keys.waiting, ...running));
  }

  /** On shutdown, after the last attempt: whatever is still taken goes back, and this dispatcher is forgotten. */
  async release(): Promise<void> {
    await this.redis.docgenFirstAttemptRelease(this.taken, this.keys.waiting, this.keys.registry, this.id);
  }
}
