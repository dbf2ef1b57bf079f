import type { Queue } from 'bullmq';
import { renderJobId, type RenderJob } from '@docgen/queue';

/** Jobs per Redis round trip when a bulk job queues its rows. */
const ENQUEUE_CHUNK = 500;

/**
 * The one producer of render jobs: one job per document generation. The job id makes
 * queueing idempotent (a generation queued twice runs once), and a job for a generation
 * that is no longer current stands down when it runs.
 */
export async function queueRenderJobs(queue: Queue<RenderJob>, documents: { id: string; generation: number }[]): Promise<void> {
  const jobs = documents.map((doc): RenderJob => ({ documentId: doc.id, generation: doc.generation }));
  if (jobs.length === 1) {
    await queue.add('render', jobs[0]!, { jobId: renderJobId(jobs[0]!) });
    return;
  }
  for (let start = 0; start < jobs.length; start += ENQUEUE_CHUNK) {
    await queue.addBulk(jobs.slice(start, start + ENQUEUE_CHUNK).map((job) => ({ name: 'render', data: job, opts: { jobId: renderJobId(job) } })));
  }
}
