import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { RENDER_JOB_OPTIONS, renderJobId, type RenderJob } from './queues';
import { TakeList, type TakenEntry } from './take-list';

/**
 * A document's first render travels on a TakeList (take-list.ts), not as a BullMQ job: the
 * fair-share pump pushes `<document>.<generation>` onto it (fair-queue.ts), a worker moves
 * the entry into a list of its own, renders, and removes it once the outcome is written.
 * That is 3 Redis commands where a BullMQ job's add and finish cost about 33. What needs a
 * schedule stays a BullMQ job on the `render` queue: the retry after a failed first attempt
 * (`queueRenderRetry`).
 *
 * A worker that dies mid-render stops beating; another gives its entries back once it has
 * been silent for RENDER_LOCK_MS, each marked as taken once more, and the next take counts
 * that take (the document is marked `rendering` at once with at least that many attempts),
 * as BullMQ counts a stalled job's takes. An entry already taken MAX_RENDER_TAKES times by
 * workers that stopped is not rendered again: as BullMQ fails a job stalled more than twice,
 * the document is left to the stuck-document sweep, which fails it once it is past its time.
 */

/** Takes of one document generation, counting those whose worker stopped: as BullMQ's 1 + maxStalledCount (2). */
export const MAX_RENDER_TAKES = 3;

/** The keys' base, inside BullMQ's key space for the render queue (beside the fair-share keys, which push onto it). */
export const renderTakeListBase = (queue: Queue<RenderJob>) => queue.toKey('takes');

export const renderTakeList = (redis: Redis, queue: Queue<RenderJob>) => new TakeList(redis, renderTakeListBase(queue));

/** The render list of a queue, on the queue's own connection. */
async function queueTakeList(queue: Queue<RenderJob>): Promise<TakeList> {
  return renderTakeList((await queue.getBackend().client) as unknown as Redis, queue);
}

/** The job an entry names; undefined for an entry that is not one of ours. */
export function renderJobOfEntry(entry: TakenEntry): RenderJob | undefined {
  const match = /^([0-9a-f-]{36})\.([1-9][0-9]{0,9})$/.exec(entry.body);
  return match ? { documentId: match[1]!, generation: Number(match[2]) } : undefined;
}

/** The job ids of every document waiting on the render list or being rendered from it (a few dozen at most: the pump keeps it short). */
export async function pendingRenderJobIds(queue: Queue<RenderJob>): Promise<Set<string>> {
  const entries = await (await queueTakeList(queue)).snapshot(Number.MAX_SAFE_INTEGER);
  return new Set((entries ?? []).map(renderJobOfEntry).flatMap((job) => (job ? [renderJobId(job)] : [])));
}

/** Entries waiting on the render list and entries being rendered, for the autoscaling gauge. */
export async function renderTakeCounts(queue: Queue<RenderJob>): Promise<{ waiting: number; taken: number }> {
  return (await queueTakeList(queue)).counts();
}

const RETRY_BACKOFF_MS = (RENDER_JOB_OPTIONS.backoff as { delay: number }).delay;

/**
 * After a first take's attempt failed: the attempts left, as a BullMQ job with the same
 * spacing a job's retries have (1 s, then 2 s). Idempotent by the job id.
 */
export function queueRenderRetry(queue: Queue<RenderJob>, job: RenderJob, takesBefore: number): Promise<unknown> {
  const attemptsBefore = 1;
  return queue.add(
    'render',
    { documentId: job.documentId, generation: job.generation, takesBefore, attemptsBefore },
    {
      jobId: renderJobId(job),
      attempts: (RENDER_JOB_OPTIONS.attempts ?? 1) - attemptsBefore,
      delay: RETRY_BACKOFF_MS,
      backoff: { type: 'exponential', delay: 2 * RETRY_BACKOFF_MS },
    },
  );
}
