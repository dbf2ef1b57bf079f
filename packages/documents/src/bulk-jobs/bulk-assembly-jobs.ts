import type { Queue } from 'bullmq';
import type { Database } from '@docgen/db';
import type { BulkAssemblyJob } from '@docgen/queue';

/** The job id is the bulk job id: a row announcing twice, or the sweep, queues it once. */
export const queueAssembly = (queue: Queue<BulkAssemblyJob>, bulkJobId: string) => queue.add('assemble', { bulkJobId }, { jobId: bulkJobId });

/**
 * Bulk jobs whose rows have all finished, not yet assembled, unchanged for `$1` seconds. Read
 * through the bulk jobs still open (bulk_jobs_open_idx), never all the bulk jobs ever made:
 * every render worker runs it every 10 s.
 */
export const FINISHED_BULK_JOBS = {
  name: 'finished-bulk-jobs',
  text: `SELECT id FROM bulk_jobs
         WHERE status IN ('queued', 'running') AND succeeded + failed = total_rows
           AND updated_at < now() - make_interval(secs => $1::double precision)
         LIMIT 100`,
};

/**
 * The finished-bulk-job sweep: bulk jobs whose last row finished but whose assembly was
 * never queued (the worker died between the commit and the enqueue, or Redis was away), or
 * ended without finishing the bulk job, get it queued. `settledMs` leaves the fast path its time first.
 */
export async function sweepFinishedBulkJobs(deps: { db: Database; queue: Queue<BulkAssemblyJob> }, settledMs: number): Promise<void> {
  const due = await deps.db.sql.query<{ id: string }>(FINISHED_BULK_JOBS, [settledMs / 1000]);
  for (const { id } of due) {
    // BullMQ ignores an add under a job id it still holds, and keeps a finished assembly job (a
    // failed one 7 days): one that ended without finishing its bulk job goes first.
    const previous = await deps.queue.getJob(id);
    const state = await previous?.getState();
    if (state === 'failed' || state === 'completed') await previous!.remove().catch(() => undefined); // or another sweep did
    await queueAssembly(deps.queue, id);
  }
}
