import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { BulkJob, Database, Prisma } from '@docgen/db';
import type { z } from 'zod';
import type { PdfOptions } from '@docgen/contracts';
import { storeRenderSecretsMany, type RenderJob } from '@docgen/queue';
import { queueUnavailable, tooManyInProgress } from '../errors';
import { separatePdfSecrets } from '../pdf-options';
import { queueRenderJobs } from '../render-jobs';

export interface CreateBulkJobDeps {
  db: Database;
  renderQueue: Queue<RenderJob>;
}

export interface BulkJobRows {
  organizationId: string;
  template: { id: string; format: string };
  /** The template version every row renders (checked to exist by the caller). */
  templateVersion: number;
  /** How the ZIP names each row's file (checked against the template by the caller). */
  fileName?: string;
  isUat: boolean;
  outputFormat: 'pdf' | 'docx' | 'both';
  /** Checked against the template already: one document per row. */
  rows: { rowNumber: number; input: Record<string, unknown> }[];
  /** MAX_ACTIVE_PER_ORG: a bulk job whose rows would take the organisation past it is refused whole. */
  maxActivePerOrg: number;
  /** Every row's document gets them (stored with "***" for passwords, as a single document's). */
  pdfOptions?: z.output<typeof PdfOptions>;
}

const INSERT_CHUNK = 1_000;

/**
 * The bulk job and one document per row, created in one transaction, then every row
 * queued (unless the rows would take the organisation past MAX_ACTIVE_PER_ORG), with the
 * PDF passwords of pdf_options in Redis beside them; if Redis refuses the jobs, the bulk job and its documents are removed again and
 * `queue_unavailable` is thrown.
 */
export async function createBulkJob(deps: CreateBulkJobDeps, request: BulkJobRows): Promise<BulkJob> {
  const { stored: pdfOptions, secrets } = separatePdfSecrets(request.pdfOptions);
  const documents = request.rows.map((row) => ({
    id: randomUUID(),
    organizationId: request.organizationId,
    templateId: request.template.id,
    templateVersion: request.templateVersion,
    isUat: request.isUat,
    inputFormat: request.template.format,
    outputFormat: request.outputFormat,
    inputJson: row.input as Prisma.InputJsonObject,
    rowNumber: row.rowNumber,
    ...(pdfOptions ? { pdfOptions: pdfOptions as Prisma.InputJsonObject } : {}),
  }));
  const bulk = await deps.db.$transaction(
    async (tx) => {
      // One bulk job of an organisation at a time counts and inserts, so concurrent bulk jobs
      // cannot each see room under MAX_ACTIVE_PER_ORG and together pass it.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`bulk-jobs:${request.organizationId}`}, 0))`;
      const [{ active }] = await tx.$queryRaw<[{ active: number }]>`SELECT count(*)::int AS active FROM (SELECT 1 FROM documents
        WHERE organization_id = ${request.organizationId}::uuid AND status IN ('queued', 'rendering') LIMIT ${request.maxActivePerOrg}) active`;
      if (active + documents.length > request.maxActivePerOrg) throw tooManyInProgress();
      const created = await tx.bulkJob.create({
        data: {
          organizationId: request.organizationId,
          templateId: request.template.id,
          templateVersion: request.templateVersion,
          fileName: request.fileName ?? null,
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
    // One key per row's document, as for a single document: each goes when its row's render ends.
    if (secrets)
      await storeRenderSecretsMany(
        deps.renderQueue,
        documents.map((doc) => doc.id),
        secrets,
      );
    await queueRenderJobs(
      deps.renderQueue,
      documents.map((doc) => ({ id: doc.id, generation: 1, organizationId: doc.organizationId })),
    );
  } catch (error) {
    // Jobs already queued find no document and stand down; passwords already stored expire with their TTL.
    await deps.db.bulkJob.delete({ where: { id: bulk.id } });
    throw Object.assign(queueUnavailable(), { cause: error });
  }
  return bulk;
}
