import type { Queue } from 'bullmq';
import { Prisma, type Database, type Document } from '@docgen/db';
import type { RenderJob } from '@docgen/queue';
import { sameAttempt, type Attempt } from './attempt';
import { queueUnavailable } from './errors';
import { queueRenderJobs } from './render-jobs';

/** A failed document being retried: what is put back if its job cannot be queued. */
type FailedAttempt = Attempt & Pick<Document, 'errorMessage' | 'completedAt' | 'renderingStartedAt'> & Partial<Pick<Document, 'errors'>>;

/**
 * queued again under a new generation, with a new render job. A job still around for the
 * old generation stands down when it runs, and the old attempt can no longer finish.
 * - from `rendering` | `queued`: the stuck-document sweep, for a document whose worker
 *   stopped or whose job was lost; its attempts keep counting.
 * - from `failed`: a caller retrying under its idempotency key; the outcome is cleared and
 *   the document gets a fresh set of attempts (not when its input was purged or its template deleted).
 * If the job cannot be queued, the document is put back as it was (for the next sweep, or
 * the caller's next retry) and `queue_unavailable` is thrown. Returns the re-queued row, or
 * undefined when the document had already moved on.
 */
export async function queueNewGeneration(db: Database, queue: Queue<RenderJob>, doc: Attempt, from: 'rendering' | 'queued'): Promise<Document | undefined>;
export async function queueNewGeneration(db: Database, queue: Queue<RenderJob>, doc: FailedAttempt, from: 'failed'): Promise<Document | undefined>;
export async function queueNewGeneration(
  db: Database,
  queue: Queue<RenderJob>,
  doc: Attempt | FailedAttempt,
  from: 'rendering' | 'queued' | 'failed',
): Promise<Document | undefined> {
  const freshStart = { errorMessage: null, errors: Prisma.DbNull, files: [], completedAt: null, renderingStartedAt: null, renderAttempts: 0 };
  const [requeued] = await db.document.updateManyAndReturn({
    // A failed document whose input retention removed is not retried (it would render `{}`), nor one
    // whose template was deleted (its files go once nothing renders from it: purge-deleted-templates.ts);
    // a merge has no template.
    where: { ...sameAttempt(doc, from), ...(from === 'failed' ? { purgedAt: null, OR: [{ templateId: null }, { template: { deletedAt: null } }] } : {}) },
    data: { status: 'queued', generation: { increment: 1 }, ...(from === 'failed' ? freshStart : {}) },
  });
  if (!requeued) return undefined;
  try {
    await queueRenderJobs(queue, [requeued]);
  } catch (error) {
    const failed = doc as FailedAttempt;
    const asItWas =
      from === 'failed'
        ? {
            errorMessage: failed.errorMessage,
            errors: failed.errors ?? Prisma.DbNull,
            completedAt: failed.completedAt,
            renderingStartedAt: failed.renderingStartedAt,
            renderAttempts: failed.renderAttempts,
          }
        : {};
    await db.document.updateMany({ where: sameAttempt(requeued, 'queued'), data: { status: from, generation: doc.generation, ...asItWas } });
    throw Object.assign(queueUnavailable(), { cause: error });
  }
  return requeued;
}
