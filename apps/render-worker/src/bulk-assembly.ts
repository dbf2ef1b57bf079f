import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { buildErrorsWorkbook, fileNamer, rowFileName, streamZip, type ZipEntry } from '@docgen/bulk';
import type { Database } from '@docgen/db';
import { finishBulkJob, type OutboxRelay } from '@docgen/documents';
import type { Logger } from '@docgen/observability';
import { BULK_ASSEMBLY_QUEUE, BulkAssemblyJob, bullPrefix } from '@docgen/queue';
import { FileNotFoundError, bulkZipKey, documentFileKey, type FileStorage } from '@docgen/storage';

export interface BulkAssemblyDeps {
  db: Database;
  storage: FileStorage;
  relay: OutboxRelay;
  logger: Logger;
}

/**
 * The bulk-assembly worker: one ZIP at a time per process (assembly is I/O, it must not crowd
 * out renders). A job that will not run again fails its bulk job (failAbandonedBulkJob).
 */
export function startBulkAssemblyWorker(connection: Redis, redisKeyPrefix: string, lockMs: number, deps: BulkAssemblyDeps): Worker<BulkAssemblyJob> {
  const worker = new Worker<BulkAssemblyJob>(BULK_ASSEMBLY_QUEUE, (job) => assembleBulkJob(job, deps), {
    connection,
    prefix: bullPrefix(redisKeyPrefix),
    concurrency: 1,
    lockDuration: lockMs,
    stalledInterval: Math.max(500, Math.floor(lockMs / 2)),
  });
  worker.on('failed', (job, error) => {
    failAbandonedBulkJob(job, error, deps).catch((err: unknown) =>
      // The bulk job stays running; the finished-bulk-job sweep queues its assembly again.
      deps.logger.error({ err, jobId: job?.id }, 'bulk job could not be marked failed'),
    );
  });
  return worker;
}

/**
 * Writes the ZIP of a bulk job whose rows are all done: one file per successful row, named
 * by its spreadsheet row, and errors.xlsx. Files are streamed from storage into storage, so
 * memory stays flat whatever the row count. A crash mid-way leaves no ZIP (storage writes
 * are atomic) and BullMQ runs the job again; a bulk job already completed is left alone.
 */
export async function assembleBulkJob(job: Job<BulkAssemblyJob>, deps: BulkAssemblyDeps): Promise<string> {
  return assemble(BulkAssemblyJob.parse(job.data).bulkJobId, deps);
}

/**
 * Once an assembly job will not run again, its bulk job is failed (with its bulk.completed
 * event): its last attempt threw, or BullMQ failed it without running it, which it does to a
 * job whose worker died during it twice (stalled past maxStalledCount).
 */
export async function failAbandonedBulkJob(job: Job<BulkAssemblyJob> | undefined, error: Error, deps: BulkAssemblyDeps): Promise<void> {
  const unrecoverable = error instanceof UnrecoverableError || error.name === 'UnrecoverableError';
  if (!job || (!unrecoverable && job.attemptsMade < (job.opts.attempts ?? 1))) return; // BullMQ retries it
  const { bulkJobId } = BulkAssemblyJob.parse(job.data);
  const event = await finishBulkJob(deps.db, bulkJobId, { status: 'failed' });
  if (!event) return; // already completed or failed
  deps.logger.error(
    { err: error, bulkJobId, attempts: job.attemptsMade },
    unrecoverable
      ? 'bulk job failed: the worker assembling its ZIP stopped twice without finishing (killed, or out of memory); its rows can still be downloaded one by one'
      : `bulk job failed: its ZIP could not be assembled in ${job.attemptsMade} attempts (${error.message}); its rows can still be downloaded one by one`,
  );
  await deps.relay.publishSoon(event);
}

async function assemble(bulkJobId: string, deps: BulkAssemblyDeps): Promise<string> {
  const bulk = await deps.db.bulkJob.findUnique({ where: { id: bulkJobId } });
  if (!bulk || bulk.status === 'completed' || bulk.status === 'failed') return 'stale';
  if (bulk.succeeded + bulk.failed < bulk.totalRows) return 'not finished';

  const rows = await deps.db.document.findMany({
    where: { bulkJobId },
    orderBy: { rowNumber: 'asc' },
    // Each row's input only for a file_name pattern to read (up to 100 MiB in all; docs/bulk.md).
    select: {
      id: true,
      organizationId: true,
      generation: true,
      status: true,
      files: true,
      rowNumber: true,
      errorMessage: true,
      purgedAt: true,
      inputJson: bulk.fileName !== null,
    },
  });
  const nameOf = bulk.fileName ? fileNamer(bulk.fileName) : undefined;
  const failures = rows.filter((row) => row.status === 'failed').map((row) => ({ row: row.rowNumber!, error: row.errorMessage ?? 'Rendering failed' }));
  // Retention does not wait for the ZIP (a compliance limit is not extended by a slow job): a
  // row purged before it is reported rather than dropped, as is a file missing from storage.
  for (const row of rows) {
    if (row.status === 'ready' && row.purgedAt) failures.push({ row: row.rowNumber!, error: purgedMessage(row.purgedAt) });
  }
  let missing = 0;
  const entries: ZipEntry[] = rows
    .filter((row) => row.status === 'ready')
    .flatMap((row) =>
      row.files.map((format) => ({
        name: nameOf
          ? nameOf((row.inputJson ?? {}) as Record<string, unknown>, rowFileName(row.rowNumber!, format).replace(/\.[^.]+$/, ''), format)
          : rowFileName(row.rowNumber!, format),
        open: async () => {
          try {
            return (await deps.storage.open(documentFileKey(row, format as 'pdf' | 'docx'))).stream;
          } catch (error) {
            if (!(error instanceof FileNotFoundError)) throw error;
            missing += 1;
            failures.push({ row: row.rowNumber!, error: missingMessage(format) });
            return undefined;
          }
        },
      })),
    );
  const errorsWorkbook = () => buildErrorsWorkbook(failures.sort((a, b) => a.row - b.row));
  const zipKey = bulkZipKey(bulk.organizationId, bulk.id);
  const bytes = await deps.storage.putStream(zipKey, streamZip(entries, { name: 'errors.xlsx', data: errorsWorkbook }));
  // Every file gone at once is storage out of reach (a volume not mounted, another bucket), not
  // rows deleted: retried like any storage failure, then the bulk job fails.
  if (entries.length > 0 && missing === entries.length) {
    throw new Error(`None of the ${entries.length} row files could be read from storage: check STORAGE_DIR (a volume every service shares) or the S3 bucket`);
  }

  const event = await finishBulkJob(deps.db, bulkJobId, { status: 'completed', zipKey });
  await deps.relay.publishSoon(event);
  if (missing) {
    deps.logger.warn(
      { bulkJobId, missing },
      'bulk job ZIP made without row files missing from storage (its errors.xlsx lists them); unless they were deleted, check the storage settings (STORAGE_DIR a shared volume, the same S3 bucket for every service)',
    );
  }
  deps.logger.info({ bulkJobId, files: entries.length - missing, failed: failures.length, bytes }, 'bulk job completed');
  return 'completed';
}

const purgedMessage = (purgedAt: Date) =>
  `Its files were removed by the retention policy on ${purgedAt.toISOString()}, before the ZIP was made; run this row again (in a new bulk job or as one document) to get them`;
const missingMessage = (format: string) =>
  `Its ${format.toUpperCase()} file is no longer stored; run this row again (in a new bulk job or as one document) to get it`;
