import type { Queue } from 'bullmq';
import { BulkInputError, checkHeader, readSpreadsheet, rowsToInputs, type SpreadsheetFormat } from '@docgen/bulk';
import type { BulkJob, Database } from '@docgen/db';
import { createBulkJob as createBulkJobRows } from '@docgen/documents';
import type { RenderJob } from '@docgen/queue';
import type { TemplateVariable } from '@docgen/templating';
import { HttpError } from '../errors';
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

/**
 * Reads the whole spreadsheet and checks it against the template before anything is
 * written: a bad header or too many rows is a 422 with nothing queued. Then the bulk job
 * and its rows are created and queued (@docgen/documents).
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
  return createBulkJobRows(deps, {
    organizationId: caller.organization.id,
    template,
    isUat: request.isUat,
    outputFormat: request.outputFormat,
    rows,
  });
}
