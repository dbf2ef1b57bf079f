import type { Job } from 'bullmq';
import { buildErrorsWorkbook, fileNamer, rowFileName, streamZip, type ZipEntry } from '@docgen/bulk';
import type { Database } from '@docgen/db';
import { finishBulkJob, type OutboxRelay } from '@docgen/documents';
import type { Logger } from '@docgen/observability';
import { BulkAssemblyJob } from '@docgen/queue';
import { bulkZipKey, documentFileKey, type FileStorage } from '@docgen/storage';

export interface BulkAssemblyDeps {
  db: Database;
  storage: FileStorage;
  relay: OutboxRelay;
  logger: Logger;
}

/**
 * Writes the ZIP of a bulk job whose rows are all done: one file per successful row, named
 * by its spreadsheet row, and errors.xlsx. Files are streamed from storage into storage, so
 * memory stays flat whatever the row count. A crash mid-way leaves no ZIP (storage writes
 * are atomic) and BullMQ runs the job again; a bulk job already completed is left alone.
 */
export async function assembleBulkJob(job: Job<BulkAssemblyJob>, deps: BulkAssemblyDeps): Promise<string> {
  const { bulkJobId } = BulkAssemblyJob.parse(job.data);
  try {
    return await assemble(bulkJobId, deps);
  } catch (error) {
    if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
      deps.logger.error({ err: error, bulkJobId }, 'bulk job ZIP could not be assembled; bulk job failed');
      await deps.relay.publishSoon(await finishBulkJob(deps.db, bulkJobId, { status: 'failed' }));
    }
    throw error;
  }
}

async function assemble(bulkJobId: string, deps: BulkAssemblyDeps): Promise<string> {
  const bulk = await deps.db.bulkJob.findUnique({ where: { id: bulkJobId } });
  if (!bulk || bulk.status === 'completed' || bulk.status === 'failed') return 'stale';
  if (bulk.succeeded + bulk.failed < bulk.totalRows) return 'not finished';

  const rows = await deps.db.document.findMany({
    where: { bulkJobId },
    orderBy: { rowNumber: 'asc' },
    select: { id: true, organizationId: true, generation: true, status: true, files: true, rowNumber: true, errorMessage: true, inputJson: true },
  });
  const nameOf = bulk.fileName ? fileNamer(bulk.fileName) : undefined;
  const entries: ZipEntry[] = rows
    .filter((row) => row.status === 'ready')
    .flatMap((row) =>
      row.files.map((format) => ({
        name: nameOf
          ? nameOf((row.inputJson ?? {}) as Record<string, unknown>, rowFileName(row.rowNumber!, format).replace(/\.[^.]+$/, ''), format)
          : rowFileName(row.rowNumber!, format),
        open: async () => (await deps.storage.open(documentFileKey(row, format as 'pdf' | 'docx'))).stream,
      })),
    );
  const failures = rows.filter((row) => row.status === 'failed').map((row) => ({ row: row.rowNumber!, error: row.errorMessage ?? 'Rendering failed' }));
  const zipKey = bulkZipKey(bulk.organizationId, bulk.id);
  const bytes = await deps.storage.putStream(zipKey, streamZip(entries, { name: 'errors.xlsx', data: await buildErrorsWorkbook(failures) }));

  const event = await finishBulkJob(deps.db, bulkJobId, { status: 'completed', zipKey });
  await deps.relay.publishSoon(event);
  deps.logger.info({ bulkJobId, files: entries.length, failed: failures.length, bytes }, 'bulk job completed');
  return 'completed';
}
