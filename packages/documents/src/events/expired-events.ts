import type { Database } from '@docgen/db';
import type { Logger } from '@docgen/observability';
import { forgetAttemptsOf } from '@docgen/webhooks';
import { retentionCutoff } from '../retention';

/**
 * One batch: the oldest events created and published before `$1`, with their delivery log, in
 * one statement (outbox_events_created_at_idx). An old event published late (the outbox was
 * down for days) is kept until it too is that old: its deliveries are under way.
 * SKIP LOCKED keeps several dispatchers apart.
 */
export const FORGET_EXPIRED_EVENTS = {
  name: 'forget-expired-events',
  text: `WITH expired AS (
           SELECT id FROM outbox_events WHERE created_at < $1 AND published_at < $1
           ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
         ), attempts AS (
           ${forgetAttemptsOf('expired')} RETURNING 1
         ), events AS (
           DELETE FROM outbox_events o USING expired WHERE o.id = expired.id RETURNING 1
         )
         SELECT (SELECT count(*) FROM events)::int AS events, (SELECT count(*) FROM attempts)::int AS attempts`,
};

export interface EventRetentionOptions {
  retentionDays: number;
  /** Events per statement: bounds the locks held and the WAL of one commit. */
  batchSize?: number;
  /** Batches per run, so one run ends; the next interval carries on. */
  maxBatches?: number;
}

/**
 * WEBHOOK_LOG_RETENTION_DAYS: webhook events created longer ago are deleted with their
 * delivery log, so neither table grows for ever. Every dispatcher runs it.
 */
export async function forgetExpiredEvents(
  deps: { db: Database; logger: Logger },
  options: EventRetentionOptions,
): Promise<{ events: number; attempts: number }> {
  const forgotten = { events: 0, attempts: 0 };
  if (options.retentionDays <= 0) return forgotten;
  const cutoff = retentionCutoff(options.retentionDays);
  const batchSize = options.batchSize ?? 5_000;
  for (let batch = 0; batch < (options.maxBatches ?? 20); batch++) {
    const [row] = await deps.db.sql.query<{ events: number; attempts: number }>(FORGET_EXPIRED_EVENTS, [cutoff, batchSize]);
    forgotten.events += row!.events;
    forgotten.attempts += row!.attempts;
    if (row!.events < batchSize) break;
  }
  if (forgotten.events) deps.logger.info({ ...forgotten, cutoff }, 'webhook log retention deleted events');
  return forgotten;
}
