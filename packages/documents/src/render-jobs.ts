import type { Queue } from 'bullmq';
import { enqueueFairly, type RenderJob } from '@docgen/queue';

/**
 * The one producer of render jobs: one job per document generation, into its organisation's
 * backlog of the fair-share scheduler (@docgen/queue's fair-queue), which hands jobs to the
 * render list round-robin across organisations. The job id is `<document>.<generation>`: a
 * generation queued twice joins its backlog once, and a take of a generation that is no
 * longer current, or already finished, stands down when it runs.
 */
export async function queueRenderJobs(queue: Queue<RenderJob>, documents: { id: string; generation: number; organizationId: string }[]): Promise<void> {
  for (let start = 0; start < documents.length; start += ENQUEUE_CHUNK) {
    const chunk = documents.slice(start, start + ENQUEUE_CHUNK);
    await enqueueFairly(
      queue,
      chunk.map((doc) => ({ documentId: doc.id, generation: doc.generation, organizationId: doc.organizationId })),
    );
  }
}

/** Jobs per Redis round trip when a bulk job queues its rows. */
const ENQUEUE_CHUNK = 500;
