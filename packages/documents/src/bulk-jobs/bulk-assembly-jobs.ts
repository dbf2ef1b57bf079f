import type { Queue } from 'bullmq';
import type { Database } from '@docgen/db';
import type { BulkAssemblyJob } from '@docgen/queue';

/** The job id is the bulk job id: a row announcing twice, or the sweep, queues it once. */
export const queueAssembly = (queue: Queue<BulkAssemblyJob>, bulkJobId: string) => queue.add('assemble', { bulkJobId }, { jobId: bulkJobId });

/**
 * The finished-bulk-job sweep: bulk jobs whose last row finished but whose assembly was
 * never queued (the worker died between the commit and the enqueue, or Redis was away)
 * get it queued. `settledMs` leaves the fast path its time first.
 */
export async function sweepFinishedBulkJobs(deps: { db: Database; queue: Queue<BulkAssemblyJob> }, settledMs: number): Promise<void> {
  const due = await deps.db.$queryRaw<{ id: string }[]>`
    SELECT id FROM bulk_jobs
    WHERE status IN ('queued', 'running') AND succeeded + failed = total_rows
      AND updated_at < now() - make_interval(secs => ${settledMs / 1000}::double precision)
    LIMIT 100`;
  for (const { id } of due) await queueAssembly(deps.queue, id);
}
