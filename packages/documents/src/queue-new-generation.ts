import type { Queue } from 'bullmq';
import { Prisma, type Database, type Document } from '@docgen/db';
import type { RenderJob } from '@docgen/queue';
import { sameAttempt, type Attempt } from './attempt';
import { queueUnavailable, templatePurged } from './errors';
import { queueRenderJobs } from './render-jobs';

/** A failed document being retried: what is put back if its job cannot be queued. */
type FailedAttempt = Attempt & Pick<Document, 'errorMessage' | 'completedAt' | 'renderingStartedAt' | 'templateId'> & Partial<Pick<Document, 'errors'>>;

/**
 * queued again under a new generation, with a new render job. A job still around for the
 * old generation stands down when it runs, and the old attempt can no longer finish.
 * - from `rendering` | `queued`: the stuck-document sweep, for a document whose worker
 *   stopped or whose job was lost; its attempts keep counting.
 * - from `failed`: a caller retrying under its idempotency key; the outcome is cleared and
 *   the document gets a fresh set of attempts (not when retention purged its input: undefined;
 *   nor once its deleted template's files are being removed: `purged` is thrown).
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
  const requeue = (client: Pick<Database, 'document'>) =>
    client.document.updateManyAndReturn({
      // A failed document whose input retention removed is not retried (it would render `{}`).
      where: { ...sameAttempt(doc, from), ...(from === 'failed' ? { purgedAt: null } : {}) },
      data: { status: 'queued', generation: { increment: 1 }, ...(from === 'failed' ? freshStart : {}) },
    });
  const templateId = from === 'failed' ? (doc as FailedAttempt).templateId : null;
  const [requeued] = templateId ? await requeueWhileTemplateFilesStay(db, templateId, requeue) : await requeue(db);
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

/**
 * A retried document renders its template's files again, which the deleted-template sweep
 * removes once nothing renders from them (packages/templates, purge-deleted-templates.ts):
 * the re-queue holds the template's row (FOR KEY SHARE) so that the sweep's claim, which locks it
 * and then looks for queued documents, either sees this one or came first, and then this
 * retry is refused (`purged`).
 */
async function requeueWhileTemplateFilesStay<T>(db: Database, templateId: string, requeue: (client: Pick<Database, 'document'>) => Promise<T[]>): Promise<T[]> {
  return db.$transaction(
    async (tx) => {
      // KEY SHARE: conflicts with the claim's FOR UPDATE alone, not with the template's own writes.
      const [stays] = await tx.$queryRaw<unknown[]>`SELECT 1 FROM templates WHERE id = ${templateId}::uuid AND files_purge_started_at IS NULL FOR KEY SHARE`;
      if (!stays) throw templatePurged();
      return requeue(tx);
    },
    { timeout: 30_000 }, // may wait out a claim (three statements, its session ended by PostgreSQL after 5 s idle between any two)
  );
}
