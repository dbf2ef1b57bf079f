import type { Queue } from 'bullmq';
import { fileNameProblem, type SpreadsheetFormat } from '@docgen/bulk';
import type { BulkJob, Database } from '@docgen/db';
import { createBulkJob as createBulkJobRows, refuseAtCap, versionNotFound, type ActiveDocumentCounts, type BulkJobRows } from '@docgen/documents';
import type { RenderJob } from '@docgen/queue';
import type { TemplateVariable } from '@docgen/templating';
import type { Caller } from '@docgen/access';
import type { UntrustedWork } from '@docgen/untrusted-work';
import { HttpError } from '../errors';
import { findTemplate } from '../templates/find-template';

export interface CreateBulkJobDeps {
  db: Database;
  renderQueue: Queue<RenderJob>;
  maxRows: number;
  /** MAX_JSON_BODY_BYTES: a row's input may be as large as a single document's. */
  maxInputBytes: number;
  maxActivePerOrg: number;
  untrusted: UntrustedWork;
  /** This replica's counts of documents in progress: a bulk job's rows make its organisation's count stale. */
  activeCounts?: ActiveDocumentCounts;
}

export interface BulkJobRequest {
  templateId: string;
  /** Without it, the published version. */
  templateVersion?: number;
  fileName?: string;
  outputFormat: 'pdf' | 'docx' | 'both';
  isUat: boolean;
  file: Buffer;
  format: SpreadsheetFormat;
  pdfOptions?: BulkJobRows['pdfOptions'];
}

/** The tokens a file name may read: one value per row (not lists, objects or images). */
const namingTokens = (variables: TemplateVariable[]) => variables.filter((v) => ['text', 'number', 'date'].includes(v.type)).map((v) => v.name);

/**
 * Reads the whole spreadsheet and checks it against the template before anything is
 * written: a bad header or too many rows is a 422 with nothing queued. Then the bulk job
 * and its rows are created and queued (@docgen/documents).
 */
export async function createBulkJob(deps: CreateBulkJobDeps, caller: Caller, request: BulkJobRequest): Promise<BulkJob> {
  const template = await findTemplate(deps.db, caller, request.templateId, request.isUat);
  // Every row renders the version asked for (a draft too), else the published one (the template row holds its copy).
  const asked = request.templateVersion;
  const version =
    asked === undefined ? template : await deps.db.templateVersion.findUnique({ where: { templateId_version: { templateId: template.id, version: asked } } });
  if (!version) throw versionNotFound();
  // A BulkInputError (a domain error about the file) reaches the error table as it is.
  const variables = version.variables as unknown as TemplateVariable[];
  const fileNameIssue = request.fileName === undefined ? undefined : fileNameProblem(request.fileName, namingTokens(variables));
  if (fileNameIssue) throw new HttpError('validation_failed', `file_name ${fileNameIssue}`, { errors: [{ path: 'file_name', message: fileNameIssue }] });
  // An organisation already at its cap is refused before its sheet costs a check thread; the
  // insert counts again, with the rows, under its lock.
  await refuseAtCap(deps.db, caller.organization.id, deps.maxActivePerOrg);
  // In a worker thread, stopped at its memory and time bounds (@docgen/untrusted-work).
  const rows = await deps.untrusted.readBulkRows(
    caller.organization.id,
    request.file,
    request.format,
    { maxRows: deps.maxRows, maxRowBytes: deps.maxInputBytes },
    variables,
  );
  const bulkJob = await createBulkJobRows(deps, {
    organizationId: caller.organization.id,
    template,
    templateVersion: version.version,
    fileName: request.fileName,
    isUat: request.isUat,
    outputFormat: request.outputFormat,
    rows,
    maxActivePerOrg: deps.maxActivePerOrg,
    pdfOptions: request.pdfOptions,
  });
  deps.activeCounts?.forget(caller.organization.id);
  return bulkJob;
}
