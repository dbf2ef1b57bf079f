import { ASYNCHRONOUS_COMMIT, WriteBatch, type Database } from '@docgen/db';
import type { Logger } from '@docgen/observability';
import type { FirstAttempts } from '@docgen/queue';
import { subscribedEndpoints } from './subscribers';

/** An outbox event to publish; `endpointIds` when the statement that wrote it already found its subscribers. */
export interface PublishableEvent {
  id: string;
  type: string;
  endpointIds?: string[];
}

/**
 * Marks are batched: one UPDATE covers every event published in this window. A mark only
 * keeps the outbox sweep (5 s) from publishing the event again, so the window can be long:
 * at 30 documents a second it is one write for fifteen events instead of one each.
 */
const MARK_WINDOW_MS = 500;

const SUBSCRIBERS = {
  name: 'event-subscribers',
  text: `${subscribedEndpoints('outbox_events')} AND e.id = $1`,
};

// For the sweep, which publishes an event late: an endpoint created since the event was written
// is not one its statement could have found (as the lost-delivery sweep judges,
// unfinished-deliveries.ts), and gets no events from before it existed. Not on the fast path,
// right after the commit: the two times may come from different clocks (Prisma sets an
// endpoint's, PostgreSQL a document event's), and there an endpoint created a moment before
// could be judged younger than the event.
const SUBSCRIBERS_WHEN_WRITTEN = {
  name: 'event-subscribers-when-written',
  text: `${SUBSCRIBERS.text} AND w.created_at <= e.created_at`,
};

const MARK_PUBLISHED = {
  name: 'mark-events-published',
  // A mark lost in a PostgreSQL crash costs a second publish by the sweep, which queues nothing new: no need to wait for the disk.
  text: `UPDATE outbox_events SET published_at = now() FROM ${ASYNCHRONOUS_COMMIT} WHERE id = ANY ($1::uuid[]) AND published_at IS NULL`,
};

const UNPUBLISHED = {
  name: 'unpublished-events',
  text: `SELECT id, type FROM outbox_events
         WHERE published_at IS NULL AND created_at < now() - make_interval(secs => $1::double precision)
         ORDER BY created_at LIMIT 500`,
};

/**
 * Turns committed outbox events into first delivery attempts, one per subscribed endpoint
 * (FirstAttempts, @docgen/queue). Publishing right after the commit is the fast path; the
 * periodic sweep catches events whose publisher died between commit and publish (or whose
 * mark was lost); what it publishes is offered once however many sweeps publish it, and a
 * first attempt offered after its delivery's first attempt ended stands down (startAttempt).
 */
export class OutboxRelay {
  private readonly marks: WriteBatch<string>;

  constructor(
    private readonly db: Database,
    private readonly firstAttempts: FirstAttempts,
    private readonly logger: Logger,
  ) {
    // A mark that fails only costs a second publish by the sweep, which sends nothing twice.
    const mark = (ids: string[]) =>
      this.db.sql
        .query(MARK_PUBLISHED, [ids])
        .catch((error: unknown) => this.logger.warn({ err: error, events: ids.length }, 'events not marked published; the outbox sweep will'));
    this.marks = new WriteBatch(mark, MARK_WINDOW_MS);
  }

  async publish(event: PublishableEvent, once = false): Promise<void> {
    const subscribers = once ? SUBSCRIBERS_WHEN_WRITTEN : SUBSCRIBERS;
    const endpointIds = event.endpointIds ?? (await this.db.sql.query<{ id: string }>(subscribers, [event.id])).map((row) => row.id);
    await (once ? this.firstAttempts.publishOnce(event, endpointIds) : this.firstAttempts.publish(event, endpointIds));
    void this.marks.add(event.id);
  }

  /** Best effort now; the sweep retries whatever failed. */
  publishSoon(event: PublishableEvent | undefined): Promise<void> {
    if (!event) return Promise.resolve();
    return this.publish(event).catch((error: unknown) => this.logger.warn({ err: error, eventId: event.id }, 'event publish deferred to the outbox sweep'));
  }

  /** Writes the marks gathered so far. */
  flushMarks(): Promise<void> {
    return this.marks.flush();
  }

  /** The outbox sweep: publishes events left unpublished for `olderThanMs`. */
  async sweep(olderThanMs = 5_000): Promise<number> {
    const pending = await this.db.sql.query<{ id: string; type: string }>(UNPUBLISHED, [olderThanMs / 1000]);
    for (const event of pending) await this.publish(event, true);
    await this.flushMarks();
    return pending.length;
  }

  /** Writes the marks still waiting (on shutdown). */
  stop(): Promise<void> {
    return this.flushMarks();
  }
}
