import type { Queue } from 'bullmq';
import type { Database, OutboxEvent } from '@docgen/db';
import type { Logger } from '@docgen/observability';
import type { EventJob } from '@docgen/queue';

/**
 * Moves committed outbox events onto the "events" queue. Publishing right after the
 * commit is the fast path; the periodic sweep catches events whose publisher died between
 * commit and publish. The job id is the event id, so publishing twice queues once.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly events: Queue<EventJob>,
    private readonly logger: Logger,
  ) {}

  async publish(event: OutboxEvent): Promise<void> {
    await this.events.add(event.type, { eventId: event.id }, { jobId: event.id });
    await this.db.outboxEvent.update({ where: { id: event.id }, data: { publishedAt: new Date() } });
  }

  /** Best effort now; the sweep retries whatever failed. */
  publishSoon(event: OutboxEvent | undefined): Promise<void> {
    if (!event) return Promise.resolve();
    return this.publish(event).catch((error: unknown) => this.logger.warn({ err: error, eventId: event.id }, 'event publish deferred to the sweep'));
  }

  async sweep(olderThanMs = 5_000): Promise<number> {
    const pending = await this.db.outboxEvent.findMany({
      where: { publishedAt: null, createdAt: { lt: new Date(Date.now() - olderThanMs) } },
      orderBy: { createdAt: 'asc' },
      take: 500,
    });
    for (const event of pending) await this.publish(event);
    return pending.length;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.logger.warn({ err: error }, 'outbox sweep failed'));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
