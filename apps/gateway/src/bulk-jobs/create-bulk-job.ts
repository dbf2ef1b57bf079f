import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { BulkInputError, checkHeader, readSpreadsheet, rowsToInputs, type SpreadsheetFormat } from '@docgen/bulk';
import type { BulkJob, Database, Prisma } from '@docgen/db';
import { renderJobId, type RenderJob } from '@docgen/queue';
import type { TemplateVariable } from '@docgen/templating';
import { HttpError, dependencyDown } from '../errors';
import type { Caller } from '../middleware/authenticate';
import { findTemplate } from '../templates/find-template';

export interface CreateBulkJobDeps {
  db: Database;
  renderQueue: Queue<RenderJob>;
  maxRows: number;
}

export interface BulkJobRequest {
  templateId: string;
  outputFormat: 'pdf' | 'docx' | 'both';
  isUat: boolean;
  file: Buffer;
  format: SpreadsheetFormat;
}

const INSERT_CHUNK = 1_000;
const ENQUEUE_CHUNK = 500;

/**
 * Reads the whole spreadsheet and checks it against the template before anything is
 * written: a bad header or too many rows is a 422 with nothing queued. Then the bulk job
 * and one document per row are created in one transaction and every row is queued; if
 * Redis refuses the jobs, the bulk job and its documents are removed again (503).
 */
export async function createBulkJob(deps: CreateBulkJobDeps, caller: Caller, request: BulkJobRequest): Promise<BulkJob> {
  const template = await findTemplate(deps.db, caller, request.templateId, request.isUat);
  let rows;
  try {
    const variables = template.variables as unknown as TemplateVariable[];
    const sheet = await readSpreadsheet(request.file, request.format, deps.maxRows, (header) => checkHeader(header, variables));
    rows = rowsToInputs(sheet, variables);
  } catch (error) {
    if (error instanceof BulkInputError) throw new HttpError(error.status, error.message, { errors: [{ path: 'file', message: error.message }] });
    throw error;
  }

  const documents = rows.map((row) => ({
    id: randomUUID(),
    organizationId: caller.organization.id,
    templateId: template.id,
    isUat: request.isUat,
    inputFormat: template.format,
    outputFormat: request.outputFormat,
    inputJson: row.input as Prisma.InputJsonObject,
    rowNumber: row.rowNumber,
  }));
  const bulk = await deps.db.$transaction(
    async (tx) => {
      const created = await tx.bulkJob.create({
        data: {
          organizationId: caller.organization.id,
          templateId: template.id,
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
    for (let start = 0; start < documents.length; start += ENQUEUE_CHUNK) {
      await deps.renderQueue.addBulk(
        documents.slice(start, start + ENQUEUE_CHUNK).map((doc) => {
          const job: RenderJob = { documentId: doc.id, generation: 1 };
          return { name: 'render', data: job, opts: { jobId: renderJobId(job) } };
        }),
      );
    }
  } catch {
    // Jobs already queued find no document and stand down.
    await deps.db.bulkJob.delete({ where: { id: bulk.id } });
    throw dependencyDown('redis');
  }
  return bulk;
}
