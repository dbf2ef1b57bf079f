import { Prisma, type Database } from '@docgen/db';
import { templateBaselinesPrefix, templateFilesPrefix, type FileStorage } from '@docgen/storage';

/**
 * How long a deleted template's files wait before the sweep may take them: every statement
 * that read the template before its delete committed (a bulk job inserting its documents, a
 * render reading its version) has long ended by then.
 */
export const DELETED_TEMPLATE_GRACE_MS = 60 * 60 * 1000;

export interface PurgeDeletedTemplatesOptions {
  /** Templates per run, so one run ends; the next interval carries on. */
  maxTemplates?: number;
  now?: Date;
}

interface DeletedTemplate {
  id: string;
  organizationId: string;
}

/** Deletes at once per template: a template with many versions never opens hundreds of files or requests together. */
const DELETES_AT_ONCE = 8;

/**
 * A template `t` that may still need its files: not deleted, deleted within the grace, or
 * with a document queued or rendering. (A failed document of a deleted template is never
 * rendered again: its retry under its idempotency key is refused, queue-new-generation.ts.)
 * Once a deleted template is past it, it can never need them again.
 */
const mayStillRender = (cutoff: Date) => Prisma.sql`(t.deleted_at IS NULL OR t.deleted_at >= ${cutoff}
  OR EXISTS (SELECT 1 FROM documents d WHERE d.template_id = t.id AND d.status IN ('queued', 'rendering')))`;

/**
 * The files a deleted template leaves are removed once nothing can render from them again
 * (`mayStillRender` is false): every version's DOCX and HTML, every preview and the drift
 * baselines. A file another template that may still render uses (a production template's
 * version promoted from this UAT one shares its file) stays; the sweep of that one takes it
 * later. The template and version rows stay (documents name them); `files_purged_at`
 * records the purge. Every render worker runs this, one template a transaction with SKIP
 * LOCKED (a crash before the commit leaves the template for the next run; deleting a file
 * twice is harmless); a template whose files cannot be deleted (storage refusing) is
 * passed over for this run, its error returned, and tried again at the next.
 */
export async function purgeDeletedTemplates(
  deps: { db: Database; storage: FileStorage },
  options: PurgeDeletedTemplatesOptions = {},
): Promise<{ purged: string[]; failed: { templateId: string; error: unknown }[] }> {
  const cutoff = new Date((options.now ?? new Date()).getTime() - DELETED_TEMPLATE_GRACE_MS);
  const purged: string[] = [];
  const failed: { templateId: string; error: unknown }[] = [];
  for (let n = 0; n < (options.maxTemplates ?? 200); n++) {
    const passedOver = failed.map((failure) => failure.templateId);
    let claimed: string | undefined;
    try {
      claimed = await purgeOne(deps, cutoff, passedOver, (id) => (claimed = id));
    } catch (error) {
      if (!claimed) throw error; // the database itself: the sweep's next run
      failed.push({ templateId: claimed, error });
      continue;
    }
    if (!claimed) break;
    purged.push(claimed);
  }
  return { purged, failed };
}

async function purgeOne(
  deps: { db: Database; storage: FileStorage },
  cutoff: Date,
  passedOver: string[],
  onClaimed: (templateId: string) => void,
): Promise<string | undefined> {
  return deps.db.$transaction(
    async (tx) => {
      const [template] = await tx.$queryRaw<DeletedTemplate[]>`
        SELECT t.id, t.organization_id AS "organizationId" FROM templates t
        WHERE t.deleted_at < ${cutoff} AND t.files_purged_at IS NULL AND t.id <> ALL(${passedOver}::uuid[]) AND NOT ${mayStillRender(cutoff)}
        ORDER BY t.deleted_at LIMIT 1 FOR UPDATE OF t SKIP LOCKED`;
      if (!template) return undefined;
      onClaimed(template.id);
      const keys = await filesOf(tx, deps.storage, template);
      const stillUsed = new Set(
        (
          await tx.$queryRaw<{ key: string }[]>`
            SELECT DISTINCT k AS key FROM templates t JOIN template_versions v ON v.template_id = t.id,
              LATERAL (VALUES (v.file_key), (v.html_file_key)) AS keys(k)
            WHERE t.organization_id = ${template.organizationId}::uuid AND t.id <> ${template.id}::uuid
              AND k = ANY(${keys}::text[]) AND ${mayStillRender(cutoff)}`
        ).map((row) => row.key),
      );
      const unused = keys.filter((key) => !stillUsed.has(key));
      for (let i = 0; i < unused.length; i += DELETES_AT_ONCE) {
        await Promise.all(unused.slice(i, i + DELETES_AT_ONCE).map((key) => deps.storage.delete(key)));
      }
      await tx.$executeRaw`UPDATE templates SET files_purged_at = now() WHERE id = ${template.id}::uuid`;
      return template.id;
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
