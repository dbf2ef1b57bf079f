import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { BulkJob, Database, Prisma } from '@docgen/db';
import type { RenderJob } from '@docgen/queue';
import { queueUnavailable } from '../errors';
import { queueRenderJobs } from '../render-jobs';

export interface CreateBulkJobDeps {
  db: Database;
  renderQueue: Queue<RenderJob>;
}

export interface BulkJobRows {
  organizationId: string;
  template: { id: string; format: string };
  isUat: boolean;
  outputFormat: 'pdf' | 'docx' | 'both';
  /** Checked against the template already: one document per row. */
  rows: { rowNumber: number; input: Record<string, unknown> }[];
}

const INSERT_CHUNK = 1_000;

/**
 * The bulk job and one document per row, created in one transaction, then every row
 * queued; if Redis refuses the jobs, the bulk job and its documents are removed again and
 * `queue_unavailable` is thrown.
 */
export async function createBulkJob(deps: CreateBulkJobDeps, request: BulkJobRows): Promise<BulkJob> {
  const documents = request.rows.map((row) => ({
    id: randomUUID(),
    organizationId: request.organizationId,
    templateId: request.template.id,
    isUat: request.isUat,
    inputFormat: request.template.format,
    outputFormat: request.outputFormat,
    inputJson: row.input as Prisma.InputJsonObject,
    rowNumber: row.rowNumber,
  }));
  const bulk = await deps.db.$transaction(
    async (tx) => {
      const created = await tx.bulkJob.create({
        data: {
          organizationId: request.organizationId,
          templateId: request.template.id,
          isUat: request.isUat,
          outputFormat: request.outputFormat,
          totalRows: documents.length,
        },
      });
      for (let start = 0; start < documents.length; start += INSERT_CHUNK) {
        await tx.document.createMany({ data: documents.slice(start, start + INSERT_CHUNK).map((doc) => ({ ...doc, bulkJobId: created.id })) });
      }
      return created;
    },
    { timeout: 60_000 },
  );

  try {
    await queueRenderJobs(
      deps.renderQueue,
      documents.map((doc) => ({ id: doc.id, generation: 1 })),
    );
  } catch (error) {
    // Jobs already queued find no document and stand down.
    await deps.db.bulkJob.delete({ where: { id: bulk.id } });
    throw Object.assign(queueUnavailable(), { cause: error });
  }
  return bulk;
}
