import type { Redis } from 'ioredis';
import { z } from 'zod';
import { deliveryJobId } from './queues';
import { TakeList, type ListTaker, type TakenEntry } from './take-list';

/**
 * A webhook delivery's first attempt travels on a TakeList (take-list.ts) instead of a BullMQ
 * job of its own: LPUSH by the publisher, BLMOVE by the dispatcher that takes it, LREM once
 * its outcome is written. Only what needs a schedule becomes a BullMQ job on
 * `webhook-deliveries`: a retry after a failed first attempt, and a first attempt deferred
 * because its endpoint was at its in-flight cap. The entries of a dispatcher that died are
 * given back, and their attempt runs again under its own number, as a BullMQ job whose lock
 * expired would. All keys share one hash tag, `{first-attempts}`.
 */

export const FirstAttempt = z.object({ eventId: z.uuid(), endpointId: z.uuid(), type: z.string() });
export type FirstAttempt = z.output<typeof FirstAttempt>;

/** The lost-delivery sweep reads the lists whole only below this many waiting entries (a longer list is a backlog, not a loss). */
export const FIRST_ATTEMPTS_SNAPSHOT_LIMIT = 10_000;
/** A sweep's second publish of an event within this long offers nothing new (sweeps of several workers at once). */
const OFFERED_TTL_MS = 10 * 60 * 1000;

const entryOf = (event: { id: string; type: string }, endpointId: string) => JSON.stringify({ eventId: event.id, endpointId, type: event.type });

export class FirstAttempts {
  readonly list: TakeList;

  constructor(redis: Redis, redisKeyPrefix: string) {
    this.list = new TakeList(redis, `${redisKeyPrefix}{first-attempts}`);
  }

  /** One entry per endpoint, in one command: the publisher's fast path, right after the event's commit. */
  publish(event: { id: string; type: string }, endpointIds: string[]): Promise<void> {
    return this.list.publish(endpointIds.map((endpointId) => entryOf(event, endpointId)));
  }

  /**
   * As `publish`, but a delivery offered this way within ten minutes is not offered again: the
   * outbox sweeps of several workers read the same unpublished events at once.
   */
  publishOnce(event: { id: string; type: string }, endpointIds: string[]): Promise<void> {
    const entries = endpointIds.map((endpointId) => ({ id: deliveryJobId({ eventId: event.id, endpointId }), entry: entryOf(event, endpointId) }));
    return this.list.publishOnce(entries, OFFERED_TTL_MS);
  }

  /**
   * The job ids (event, endpoint) of every first attempt waiting or taken: they have no
   * BullMQ job and need none. Undefined when more than FIRST_ATTEMPTS_SNAPSHOT_LIMIT wait.
   */
  async pendingJobIds(): Promise<Set<string> | undefined> {
    const entries = await this.list.snapshot(FIRST_ATTEMPTS_SNAPSHOT_LIMIT);
    if (!entries) return undefined;
    const ids = new Set<string>();
    for (const entry of entries) {
      const attempt = parseAttempt(entry);
      if (attempt) ids.add(deliveryJobId(attempt));
    }
    return ids;
  }

  /** Gives the entries of every dispatcher silent for longer than `heartbeatMs` (but `self`) back to the waiting list; how many. */
  reclaimAbandoned(heartbeatMs: number, self?: ListTaker): Promise<number> {
    return this.list.reclaimAbandoned(heartbeatMs, self);
  }

  /** A dispatcher's side of the lists; `blocking` is a connection of its own (`blockingConnection`). */
  taker(blocking: Redis): ListTaker {
    return this.list.taker(blocking);
  }
}

export function parseAttempt(entry: TakenEntry): FirstAttempt | undefined {
  try {
    const parsed = FirstAttempt.safeParse(JSON.parse(entry.body));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
