import { presentDocument } from '@docgen/contracts';
import type { Database, Document, OutboxEvent, Prisma } from '@docgen/db';

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

/**
 * rendering → ready | failed, and its announcement, in one transaction: the completion
 * event (or the bulk job's count) changes if and only if this call made the change, so
 * it is announced exactly once. Returns undefined when another call got there first.
 */
export async function finishRendering(
  db: Database,
  doc: Pick<Document, 'id' | 'generation'>,
  outcome: { status: 'ready'; files: string[] } | { status: 'failed'; errorMessage: string },
): Promise<Finished | undefined> {
  return db.$transaction(async (tx) => {
    const [finished] = await tx.document.updateManyAndReturn({
      where: { id: doc.id, generation: doc.generation, status: 'rendering' },
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
