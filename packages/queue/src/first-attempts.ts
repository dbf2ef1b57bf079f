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
 * list of its own, and keeps a heartbeat key alive while it runs. Every dispatcher moves
 * the entries of a dispatcher whose heartbeat has expired back to the waiting list
 * (`reclaimAbandoned`), where their attempt runs again under its own number, as a BullMQ
 * job whose lock expired would. All keys share one hash tag, so the scripts that touch
 * several of them run on one Redis Cluster node.
 */

export const FirstAttempt = z.object({ eventId: z.uuid(), endpointId: z.uuid(), type: z.string() });
export type FirstAttempt = z.output<typeof FirstAttempt>;

/** The entry as it sits in the lists (LREM needs the very string that was taken). */
export interface TakenAttempt {
  raw: string;
  /** Undefined for an entry that is not one of ours: it is dropped. */
  attempt: FirstAttempt | undefined;
}

// KEYS: waiting list, registry of dispatchers. ARGV: key prefix of taken lists, of heartbeats.
// Every registered dispatcher without a heartbeat gives its taken entries back.
const RECLAIM_ABANDONED = `
local waiting, registry = KEYS[1], KEYS[2]
local moved = 0
for _, id in ipairs(redis.call('SMEMBERS', registry)) do
  if redis.call('EXISTS', ARGV[2] .. id) == 0 then
    while redis.call('LMOVE', ARGV[1] .. id, waiting, 'LEFT', 'RIGHT') do moved = moved + 1 end
    redis.call('SREM', registry, id)
  end
end
return moved
`;

// KEYS: waiting list, registry. ARGV: key prefix of taken lists. Every entry waiting or taken, read at one instant.
const EVERY_ENTRY = `
local entries = redis.call('LRANGE', KEYS[1], 0, -1)
for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  for _, entry in ipairs(redis.call('LRANGE', ARGV[1] .. id, 0, -1)) do entries[#entries + 1] = entry end
end
return entries
`;

type FirstAttemptRedis = Redis & {
  docgenReclaimAttempts(waiting: string, registry: string, takenPrefix: string, alivePrefix: string): Promise<number>;
  docgenEveryAttempt(waiting: string, registry: string, takenPrefix: string): Promise<string[]>;
};

export class FirstAttempts {
  private readonly waiting: string;
  private readonly registry: string;
  private readonly takenPrefix: string;
  private readonly alivePrefix: string;

  constructor(
    private readonly redis: Redis,
    redisKeyPrefix: string,
  ) {
    const base = `${redisKeyPrefix}{first-attempts}`;
    this.waiting = `${base}:waiting`;
    this.registry = `${base}:dispatchers`;
    this.takenPrefix = `${base}:taken:`;
    this.alivePrefix = `${base}:alive:`;
  }

  private scripts(): FirstAttemptRedis {
    const client = this.redis as FirstAttemptRedis;
    if (!client.docgenReclaimAttempts) {
      client.defineCommand('docgenReclaimAttempts', { numberOfKeys: 2, lua: RECLAIM_ABANDONED });
      client.defineCommand('docgenEveryAttempt', { numberOfKeys: 2, lua: EVERY_ENTRY });
    }
    return client;
  }

  /** One entry per endpoint, in one command. */
  async publish(event: { id: string; type: string }, endpointIds: string[]): Promise<void> {
    if (endpointIds.length === 0) return;
    await this.redis.lpush(this.waiting, ...endpointIds.map((endpointId) => JSON.stringify({ eventId: event.id, endpointId, type: event.type })));
  }

  /** The job ids (event, endpoint) of every first attempt waiting or taken: they have no BullMQ job and need none. */
  async pendingJobIds(): Promise<Set<string>> {
    const entries = await this.scripts().docgenEveryAttempt(this.waiting, this.registry, this.takenPrefix);
    const ids = new Set<string>();
    for (const raw of entries) {
      const attempt = parseEntry(raw);
      if (attempt) ids.add(deliveryJobId(attempt));
    }
    return ids;
  }

  /** Gives the entries of every dispatcher whose heartbeat expired back to the waiting list; how many. */
  reclaimAbandoned(): Promise<number> {
    return this.scripts().docgenReclaimAttempts(this.waiting, this.registry, this.takenPrefix, this.alivePrefix);
  }

  /** A dispatcher's side of the lists; `blocking` is a connection of its own (BLMOVE holds it while it waits). */
  taker(blocking: Redis, heartbeatMs: number): FirstAttemptTaker {
    return new FirstAttemptTaker(this.redis, blocking, heartbeatMs, {
      waiting: this.waiting,
      registry: this.registry,
      taken: this.takenPrefix,
      alive: this.alivePrefix,
      reclaimAbandoned: () => this.reclaimAbandoned(),
    });
  }
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
  private readonly alive: string;

  constructor(
    private readonly redis: Redis,
    private readonly blocking: Redis,
    /** How long a silent dispatcher keeps its entries (WEBHOOK_LOCK_MS, like a BullMQ job's lock). */
    private readonly heartbeatMs: number,
    private readonly keys: { waiting: string; registry: string; taken: string; alive: string; reclaimAbandoned: () => Promise<number> },
  ) {
    this.taken = keys.taken + this.id;
    this.alive = keys.alive + this.id;
  }

  /** Registers this dispatcher, or says it is still alive; call every third of `heartbeatMs`. */
  async beat(): Promise<void> {
    await this.redis.multi().set(this.alive, '1', 'PX', this.heartbeatMs).sadd(this.keys.registry, this.id).exec();
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

  /** On shutdown, after the last attempt: whatever is still taken goes back for another dispatcher. */
  async release(): Promise<void> {
    await this.redis.del(this.alive);
    await this.keys.reclaimAbandoned();
  }
}
