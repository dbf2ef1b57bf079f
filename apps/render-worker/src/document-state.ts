import type { Queue } from 'bullmq';
import { presentDocument } from '@docgen/contracts';
import type { Database, Document, OutboxEvent, Prisma } from '@docgen/db';
import { renderJobId, type RenderJob } from '@docgen/queue';

export type CompletionEvent = 'document.ready' | 'document.failed';

/**
 * queued → rendering. Only for the generation the job was queued for; a job for an older
 * generation, or for a document already finished, finds nothing and stands down. A
 * document already "rendering" is taken over: its previous worker died.
 */
export async function startRendering(db: Database, documentId: string, generation: number): Promise<Document | undefined> {
  const [doc] = await db.document.updateManyAndReturn({
    where: { id: documentId, generation, status: { in: ['queued', 'rendering'] } },
    data: { status: 'rendering', renderingStartedAt: new Date(), renderAttempts: { increment: 1 } },
  });
  return doc;
}

export interface Finished {
  /** The completion event to publish; none for a row of a bulk job (it has bulk.completed). */
  event?: OutboxEvent;
  /** Set when this was the last row of its bulk job: the ZIP can be assembled. */
  bulkJobDone?: string;
}

/** One render attempt of a document: every change it makes is conditional on still being it. */
export type Attempt = Pick<Document, 'id' | 'generation' | 'renderAttempts'>;

/** The row as long as it is still in `status` for this attempt (nobody finished, re-queued or took it over). */
const sameAttempt = (doc: Attempt, status: 'rendering' | 'queued') => ({
  id: doc.id,
  generation: doc.generation,
  renderAttempts: doc.renderAttempts,
  status,
});

/**
 * rendering → ready | failed, and its announcement, in one transaction: the completion
 * event (or the bulk job's count) changes if and only if this call made the change, so
 * it is announced exactly once. Only the attempt that is current may finish: returns
 * undefined when another call got there first or a newer attempt took the document over.
 */
export async function finishRendering(
  db: Database,
  doc: Attempt,
  outcome: { status: 'ready'; files: string[] } | { status: 'failed'; errorMessage: string },
): Promise<Finished | undefined> {
  return db.$transaction(async (tx) => {
    const [finished] = await tx.document.updateManyAndReturn({
      where: sameAttempt(doc, 'rendering'),
      data: {
        status: outcome.status,
        completedAt: new Date(),
        ...(outcome.status === 'ready' ? { files: outcome.files, errorMessage: null } : { errorMessage: outcome.errorMessage, files: [] }),
      },
    });
    if (!finished) return undefined;
    if (finished.bulkJobId) return countBulkRow(tx, finished.bulkJobId, outcome.status);
    const event: CompletionEvent = outcome.status === 'ready' ? 'document.ready' : 'document.failed';
    const occurredAt = finished.completedAt!.toISOString();
    return {
      event: await tx.outboxEvent.create({
        data: {
          type: event,
          organizationId: finished.organizationId,
          isUat: finished.isUat,
          subjectId: finished.id,
          payload: { job_id: finished.id, event, occurred_at: occurredAt, data: presentDocument(finished) } as Prisma.InputJsonObject,
        },
      }),
    };
  });
}

/** The row lock on the bulk job makes exactly one finishing row see the count complete. */
async function countBulkRow(tx: Prisma.TransactionClient, bulkJobId: string, status: 'ready' | 'failed'): Promise<Finished> {
  const [bulk] = await tx.bulkJob.updateManyAndReturn({
    where: { id: bulkJobId, status: { in: ['queued', 'running'] } },
    data: { status: 'running', ...(status === 'ready' ? { succeeded: { increment: 1 } } : { failed: { increment: 1 } }) },
  });
  return bulk && bulk.succeeded + bulk.failed === bulk.totalRows ? { bulkJobDone: bulk.id } : {};
}

/** rendering → queued while the document waits for BullMQ to retry it (after a retryable failure). */
export async function waitForRetry(db: Database, doc: Attempt): Promise<boolean> {
  const { count } = await db.document.updateMany({ where: sameAttempt(doc, 'rendering'), data: { status: 'queued' } });
  return count === 1;
}

/**
 * rendering | queued → queued under a new generation, with a new render job: for a
 * document whose worker stopped or whose job was lost. A job still around for the old
 * generation stands down when it runs, and the old attempt can no longer finish. If the
 * job cannot be queued, the document is put back as it was for the next sweep.
 */
export async function requeueAsNewGeneration(db: Database, queue: Queue<RenderJob>, doc: Attempt, from: 'rendering' | 'queued'): Promise<boolean> {
  const [requeued] = await db.document.updateManyAndReturn({
    where: sameAttempt(doc, from),
    data: { status: 'queued', generation: { increment: 1 } },
  });
  if (!requeued) return false;
  const job: RenderJob = { documentId: requeued.id, generation: requeued.generation };
  try {
    await queue.add('render', job, { jobId: renderJobId(job) });
  } catch (error) {
    await db.document.updateMany({ where: sameAttempt(requeued, 'queued'), data: { status: from, generation: doc.generation } });
    throw error;
  }
  return true;
}
