import type { Database } from '@docgen/db';
import { templateBaselinesPrefix, templateFilesPrefix, type FileStorage } from '@docgen/storage';

/**
 * How long a deleted template's files wait before the sweep may take them: every statement
 * that read the template before its delete committed (a bulk job inserting its documents, a
 * render reading its version) has long ended by then.
 */
export const DELETED_TEMPLATE_GRACE_MS = 60 * 60 * 1000;

export interface PurgeDeletedTemplatesOptions {
  /** Templates claimed per transaction: bounds the locks held and the work lost to a crash. */
  batchSize?: number;
  /** Batches per run, so one run ends; the next interval carries on. */
  maxBatches?: number;
  now?: Date;
}

interface DeletedTemplate {
  id: string;
  organizationId: string;
}

/**
 * The files a deleted template leaves are removed once nothing can render from them again:
 * every version's DOCX and HTML, every preview and the drift baselines. A template waits
 * while one of its documents is queued or rendering, or failed and not yet purged (its caller
 * may retry it under its idempotency key, which renders its version again; retention purges
 * it after RETENTION_DAYS). A file another template still uses (a production template's
 * version promoted from this UAT one shares its file) stays until that one is purged too,
 * whose own purge then takes it. The template and version rows stay (documents name them);
 * `files_purged_at` records the purge. Every render worker runs this; SKIP LOCKED keeps them
 * apart, and a crash before the commit leaves the template for the next run (deleting a file
 * twice is harmless).
 */
export async function purgeDeletedTemplates(deps: { db: Database; storage: FileStorage }, options: PurgeDeletedTemplatesOptions = {}): Promise<string[]> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - DELETED_TEMPLATE_GRACE_MS);
  const batchSize = options.batchSize ?? 20;
  const purged: string[] = [];
  for (let batch = 0; batch < (options.maxBatches ?? 10); batch++) {
    const ids = await purgeBatch(deps, cutoff, batchSize);
    purged.push(...ids);
    if (ids.length < batchSize) break;
  }
  return purged;
}

async function purgeBatch(deps: { db: Database; storage: FileStorage }, cutoff: Date, batchSize: number): Promise<string[]> {
  return deps.db.$transaction(
    async (tx) => {
      const templates = await tx.$queryRaw<DeletedTemplate[]>`
        SELECT t.id, t.organization_id AS "organizationId" FROM templates t
        WHERE t.deleted_at < ${cutoff} AND t.files_purged_at IS NULL
          AND NOT EXISTS (
            SELECT 1 FROM documents d
            WHERE d.template_id = t.id AND d.purged_at IS NULL AND d.status IN ('queued', 'rendering', 'failed'))
        ORDER BY t.deleted_at LIMIT ${batchSize} FOR UPDATE OF t SKIP LOCKED`;
      for (const template of templates) {
        const keys = await filesOf(tx, deps.storage, template);
        const stillUsed = new Set(
          (
            await tx.$queryRaw<{ key: string }[]>`
              SELECT DISTINCT k AS key FROM templates t JOIN template_versions v ON v.template_id = t.id,
                LATERAL (VALUES (v.file_key), (v.html_file_key)) AS keys(k)
              WHERE t.organization_id = ${template.organizationId}::uuid AND t.id <> ${template.id}::uuid
                AND t.files_purged_at IS NULL AND k = ANY(${keys}::text[])`
          ).map((row) => row.key),
        );
        await Promise.all(keys.filter((key) => !stillUsed.has(key)).map((key) => deps.storage.delete(key)));
      }
      const ids = templates.map((template) => template.id);
      if (ids.length) await tx.$executeRaw`UPDATE templates SET files_purged_at = now() WHERE id = ANY(${ids}::uuid[])`;
      return ids;
    },
    { timeout: 120_000 },
  );
}

/** Its stored files (under its own names) and the files its versions point to (a promoted version's are its UAT template's). */
async function filesOf(tx: Pick<Database, '$queryRaw'>, storage: FileStorage, template: DeletedTemplate): Promise<string[]> {
  const [named, baselines, pointed] = await Promise.all([
    storage.list(templateFilesPrefix(template.organizationId, template.id)),
    storage.list(templateBaselinesPrefix(template.organizationId, template.id)),
    tx.$queryRaw<{ key: string }[]>`
      SELECT k AS key FROM template_versions v, LATERAL (VALUES (v.file_key), (v.html_file_key)) AS keys(k)
      WHERE v.template_id = ${template.id}::uuid AND k IS NOT NULL`,
  ]);
  return [...new Set([...named, ...baselines, ...pointed.map((row) => row.key)])];
}
