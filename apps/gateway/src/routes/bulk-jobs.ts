import { extname } from 'node:path';
import type { Queue } from 'bullmq';
import { ZodError } from 'zod';
import { pdfOptionsIssues, presentBulkJob } from '@docgen/contracts';
import type { Database } from '@docgen/db';
import type { ActiveDocumentCounts } from '@docgen/documents';
import type { UntrustedWork } from '@docgen/untrusted-work';
import type { RenderJob } from '@docgen/queue';
import { createBulkJob } from '../bulk-jobs/create-bulk-job';
import { findBulkJob } from '../bulk-jobs/find-bulk-job';
import { HttpError } from '../errors';
import { requireSigningCertificate } from '../documents/signing-check';
import { requireCaller } from '../middleware/authenticate';
import { singleFileUpload } from '../middleware/single-file-upload';
import type { OperationHandler, OperationHandlers } from '../operations/operation-handler';
import type { Downloads } from './downloads';
import { afterCursor, decodeCursor, newestFirst, toPage } from '../pagination';
import { attachment } from './templates';

export interface BulkJobRouteDeps {
  db: Database;
  downloads: Downloads;
  renderQueue: Queue<RenderJob>;
  maxUploadBytes: number;
  maxRows: number;
  maxInputBytes: number;
  maxActivePerOrg: number;
  untrusted: UntrustedWork;
  activeCounts?: ActiveDocumentCounts;
}

const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** The spreadsheet's format by its name, checked against its first bytes where it can be. */
function spreadsheetFormat(filename: string, file: Buffer): 'xlsx' | 'csv' {
  const extension = extname(filename).toLowerCase();
  if (extension === '.xlsx') {
    if (!file.subarray(0, 4).equals(ZIP_SIGNATURE))
      throw new HttpError('spreadsheet_invalid', 'The .xlsx file is not an Excel workbook; save it again as Excel Workbook (.xlsx)');
    return 'xlsx';
  }
  if (extension === '.csv') return 'csv';
  throw new HttpError('unsupported_media_type', `Upload the spreadsheet as .xlsx or .csv (got "${extension || filename}")`);
}

export function bulkJobHandlers(deps: BulkJobRouteDeps): OperationHandlers<'createBulkJob' | 'listBulkJobs' | 'getBulkJob' | 'downloadBulkJob'> {
  const { db } = deps;

  const uploadBulkJob: OperationHandler<'createBulkJob'> = async ({ req, body: form, query: { is_uat: queryUat }, reply }) => {
    const caller = requireCaller(req);
    if (!req.file) {
      throw new HttpError('validation_failed', 'No spreadsheet; send it in the multipart field "file"', { errors: [{ path: 'file', message: 'Required' }] });
    }
    if (req.file.size === 0) throw new HttpError('validation_failed', 'The uploaded file is empty', { errors: [{ path: 'file', message: 'is empty' }] });
    // The combinations of pdf_options and output_format a document refuses (the form schema cannot say them: it is narrowed to its fields).
    const optionIssues = pdfOptionsIssues(form);
    if (optionIssues.length) throw new ZodError(optionIssues.map(({ path, message }) => ({ code: 'custom' as const, path, message, input: form.pdf_options })));
    const isUat = form.is_uat || queryUat;
    await requireSigningCertificate(db, caller.organization.id, isUat, form.pdf_options);
    const filename = Buffer.from(req.file.originalname, 'latin1').toString('utf8');
    const bulk = await createBulkJob(deps, caller, {
      templateId: form.template_id,
      templateVersion: form.template_version,
      fileName: form.file_name,
      outputFormat: form.output_format,
      isUat,
      file: req.file.buffer,
      format: spreadsheetFormat(filename, req.file.buffer),
      pdfOptions: form.pdf_options,
    });
    req.log.info({ bulkJobId: bulk.id, rows: bulk.totalRows }, 'bulk job queued');
    reply(202, presentBulkJob(bulk));
  };

  const listBulkJobs: OperationHandler<'listBulkJobs'> = async ({ req, query, reply }) => {
    const caller = requireCaller(req);
    const rows = await db.bulkJob.findMany({
      where: {
        organizationId: caller.organization.id,
        isUat: query.is_uat,
        ...(query.template_id ? { templateId: query.template_id } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...afterCursor(decodeCursor(query.cursor)),
      },
      orderBy: newestFirst,
      take: query.limit + 1,
    });
    reply(200, toPage(rows, query.limit, presentBulkJob));
  };

  const getBulkJob: OperationHandler<'getBulkJob'> = async ({ req, params, query: { is_uat }, reply }) => {
    reply(200, presentBulkJob(await findBulkJob(db, requireCaller(req), params.id, is_uat)));
  };

  const downloadBulkJob: OperationHandler<'downloadBulkJob'> = async ({ req, res, params, query: { is_uat } }) => {
    const bulk = await findBulkJob(db, requireCaller(req), params.id, is_uat);
    if (bulk.purgedAt) {
      throw new HttpError('purged', `This bulk job's ZIP was removed on ${bulk.purgedAt.toISOString()} by the retention policy; create the bulk job again`);
    }
    if (bulk.status !== 'completed' || !bulk.zipKey) {
      const done = bulk.succeeded + bulk.failed;
      const why =
        bulk.status === 'failed'
          ? 'Bulk job failed: its ZIP could not be assembled; create the bulk job again'
          : `Bulk job is ${bulk.status} (${done} of ${bulk.totalRows} rows done); download it once its status is completed`;
      throw new HttpError('not_ready', why);
    }
    const template = await db.template.findUniqueOrThrow({ where: { id: bulk.templateId }, select: { name: true } });
    await deps.downloads.file(res, {
      organizationId: bulk.organizationId,
      key: bulk.zipKey,
      contentType: 'application/zip',
      contentDisposition: attachment(`${template.name}-bulk-${bulk.id}.zip`),
    });
  };

  return {
    createBulkJob: { before: [singleFileUpload(deps.maxUploadBytes, 'the spreadsheet')], handle: uploadBulkJob },
    listBulkJobs,
    getBulkJob,
    downloadBulkJob,
  };
}
