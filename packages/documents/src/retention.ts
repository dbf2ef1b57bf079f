import type { Database } from '@docgen/db';
import type { Logger } from '@docgen/observability';
import { documentFileGeneration, documentFilesPrefix, type FileStorage } from '@docgen/storage';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The instant before which what a retention of `retentionDays` keeps has expired. */
export const retentionCutoff = (retentionDays: number, now = new Date()) => new Date(now.getTime() - retentionDays * DAY_MS);

export interface RetentionDeps {
  db: Database;
  storage: FileStorage;
  logger: Logger;
}

export interface RetentionOptions {
  retentionDays: number;
  /** Rows claimed per transaction: bounds the locks held and the work lost to a crash. */
  batchSize?: number;
  /** Batches per run, so one run ends; the next interval carries on. */
  maxBatches?: number;
  now?: Date;
}

interface PurgeRow {
  id: string;
  organizationId: string;
  key: string | null;
}

/**
 * One batch of one table: claim the oldest expired rows with FOR UPDATE SKIP LOCKED (so
 * purgers on other workers take other rows), delete their files while holding the claim,
 * then mark them purged in the same transaction. A crash before the commit leaves the rows
 * unpurged for the next run (deleting a file twice is harmless); a file is never listed
 * on a row after it is gone, except to a download racing the purge (a 503 retry finds 410).
 */
async function purgeBatch(deps: RetentionDeps, table: 'documents' | 'bulk_jobs', cutoff: Date, batchSize: number): Promise<string[]> {
  return deps.db.$transaction(
    async (tx) => {
      const rows =
        table === 'documents'
          ? await tx.$queryRaw<PurgeRow[]>`
              SELECT id, organization_id AS "organizationId", NULL AS key FROM documents
              WHERE purged_at IS NULL AND status IN ('ready', 'failed') AND created_at < ${cutoff}
              ORDER BY created_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED`
          : await tx.$queryRaw<PurgeRow[]>`
              SELECT id, organization_id AS "organizationId", zip_key AS key FROM bulk_jobs
              WHERE purged_at IS NULL AND zip_key IS NOT NULL AND created_at < ${cutoff}
              ORDER BY created_at LIMIT ${batchSize} FOR UPDATE SKIP LOCKED`;
      if (!rows.length) return [];
      for (const row of rows) {
        const keys = row.key ? [row.key] : await deps.storage.list(documentFilesPrefix(row));
        await Promise.all(keys.map((key) => deps.storage.delete(key)));
      }
      const ids = rows.map((row) => row.id);
      const now = new Date();
      if (table === 'documents') {
        await tx.$executeRaw`UPDATE documents SET files = '{}', input_json = '{}'::jsonb, purged_at = ${now}, updated_at = ${now} WHERE id = ANY(${ids}::uuid[])`;
      } else {
        await tx.$executeRaw`UPDATE bulk_jobs SET zip_key = NULL, purged_at = ${now}, updated_at = ${now} WHERE id = ANY(${ids}::uuid[])`;
      }
      return ids;
    },
    { timeout: 120_000 },
  );
}

/**
 * RETENTION_DAYS: documents created longer ago lose their files and input_json (the record,
 * its status and its history stay; files [] and purged_at set), and bulk jobs their ZIP.
 * Only finished documents: one still queued or rendering is left to finish first.
 * Returns the ids purged by this call. Every render worker runs it as the retention sweep;
 * SKIP LOCKED keeps them apart.
 */
export async function purgeExpired(deps: RetentionDeps, options: RetentionOptions): Promise<{ documents: string[]; bulkJobs: string[] }> {
  const purged = { documents: [] as string[], bulkJobs: [] as string[] };
  if (options.retentionDays <= 0) return purged;
  const cutoff = retentionCutoff(options.retentionDays, options.now);
  const batchSize = options.batchSize ?? 100;
  for (const [table, into] of [
    ['documents', purged.documents],
    ['bulk_jobs', purged.bulkJobs],
  ] as const) {
    for (let batch = 0; batch < (options.maxBatches ?? 10); batch++) {
      const ids = await purgeBatch(deps, table, cutoff, batchSize);
      into.push(...ids);
      if (ids.length < batchSize) break;
    }
  }
  if (purged.documents.length || purged.bulkJobs.length) {
    deps.logger.info({ documents: purged.documents.length, bulkJobs: purged.bulkJobs.length, cutoff }, 'retention purged files');
  }
  return purged;
}

/**
 * A document re-rendered under a new generation (a retry, or a re-queue after its worker
 * died) leaves the older generations' files behind: delete them once the new one has
 * finished. Best effort: a file missed here goes with the document at retention.
 */
export async function deleteSupersededFiles(storage: FileStorage, doc: { organizationId: string; id: string; generation: number }): Promise<number> {
  if (doc.generation <= 1) return 0;
  const stale = (await storage.list(documentFilesPrefix(doc))).filter((key) => (documentFileGeneration(key) ?? doc.generation) < doc.generation);
  await Promise.all(stale.map((key) => storage.delete(key)));
  return stale.length;
}
