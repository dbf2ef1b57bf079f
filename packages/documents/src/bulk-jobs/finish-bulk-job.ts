import { presentBulkJob } from '@docgen/contracts';
import type { Database, Prisma } from '@docgen/db';
import { buildEventPayload } from '../events/envelope';

/** queued | running → completed | failed, with its bulk.completed event, exactly once. */
export async function finishBulkJob(db: Database, bulkJobId: string, outcome: { status: 'completed'; zipKey: string } | { status: 'failed' }) {
  return db.$transaction(async (tx) => {
    const [finished] = await tx.bulkJob.updateManyAndReturn({
      where: { id: bulkJobId, status: { in: ['queued', 'running'] } },
      data: { status: outcome.status, completedAt: new Date(), ...(outcome.status === 'completed' ? { zipKey: outcome.zipKey } : {}) },
    });
    if (!finished) return undefined;
    return tx.outboxEvent.create({
      data: {
        type: 'bulk.completed',
        organizationId: finished.organizationId,
        isUat: finished.isUat,
        subjectId: finished.id,
        payload: buildEventPayload('bulk.completed', finished.id, finished.completedAt!, presentBulkJob(finished)) as Prisma.InputJsonObject,
      },
    });
  });
}
