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
  onFailed?: (templateId: string, error: unknown) => void;
}

interface DeletedTemplate {
  id: string;
  organizationId: string;
}

/** Deletes at once per template: a template with many versions never opens hundreds of files or requests together. */
const DELETES_AT_ONCE = 8;

/** A sweep that began and did not mark its end within this long (its worker died, storage refused) is taken over. */
const PURGE_LEASE_MS = 10 * 60 * 1000;

/** A claim is three statements: a worker whose event loop stalls in between loses its session rather than holding the template's row. */
const CLAIM_IDLE_LIMIT = '5s';

/**
 * A deleted template whose files nothing can render from any more: deleted before the grace
 * (both instants by the database's clock; `now` moves it in tests), its sweep not begun or
 * its lease ended, and no document of it queued or rendering. (A failed document of it is
 * retried under its idempotency key only until its sweep begins.)
 */
const sweepable = (now: Date | null) => Prisma.sql`t.deleted_at < COALESCE(${now}::timestamptz, now()) - ${DELETED_TEMPLATE_GRACE_MS} * interval '1 millisecond'
  AND t.files_purged_at IS NULL
  AND (t.files_purge_started_at < COALESCE(${now}::timestamptz, now()) - ${PURGE_LEASE_MS} * interval '1 millisecond'
    OR (t.files_purge_started_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.organization_id = t.organization_id AND d.template_id = t.id AND d.status IN ('queued', 'rendering'))))`;

export interface PurgeRun {
  purged: string[];
  /** Templates whose files storage refused to delete: passed over for this run, taken again once their lease ends. */
  failed: { templateId: string; error: unknown }[];
}

/**
 * The files a deleted template leaves are removed once nothing can render from them again:
 * every version's DOCX and HTML, every preview and the drift baselines. A file another
 * template shares (a production template's version promoted from this UAT one) stays while
 * that one's sweep has not begun: whichever of them is swept last takes it. The template and
 * version rows stay (documents name them).
 *
 * Three steps, none holding a transaction over storage: claim (a short transaction that
 * locks the template, checks again with a fresh snapshot that no document of it is queued or
 * rendering, and sets `files_purge_started_at`: from then on a failed document of it is not
 * retried, packages/documents queue-new-generation.ts, whose retry takes the same row lock);
 * delete the files, 8 at a time; mark `files_purged_at`. A claim is a lease: a sweep whose
 * worker died, or whose files storage refused to delete, is taken over after PURGE_LEASE_MS
 * (deleting a file twice is harmless). Every render worker runs this; SKIP LOCKED keeps
 * their claims apart. `onFailed` hears of each template storage refused as it happens.
 */
export async function purgeDeletedTemplates(deps: { db: Database; storage: FileStorage }, options: PurgeDeletedTemplatesOptions = {}): Promise<PurgeRun> {
  const run: PurgeRun = { purged: [], failed: [] };
  const passedOver: string[] = [];
  for (let n = 0; n < (options.maxTemplates ?? 200); n++) {
    const claim = await claimOne(deps.db, options.now ?? null, passedOver);
    if (claim === 'none') break;
    passedOver.push(claim.id);
    if (claim.busy) continue;
    try {
      await deleteFiles(deps, claim);
    } catch (error) {
      run.failed.push({ templateId: claim.id, error });
      options.onFailed?.(claim.id, error);
      continue;
    }
    await deps.db.$executeRaw`UPDATE templates SET files_purged_at = now() WHERE id = ${claim.id}::uuid`;
    run.purged.push(claim.id);
  }
  return run;
}

/** The oldest sweepable template, its sweep begun; `busy` if a document of it was queued meanwhile. */
async function claimOne(db: Database, now: Date | null, passedOver: string[]): Promise<(DeletedTemplate & { busy: boolean }) | 'none'> {
  return db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL idle_in_transaction_session_timeout = '${CLAIM_IDLE_LIMIT}'`);
    const [template] = await tx.$queryRaw<DeletedTemplate[]>`
      SELECT t.id, t.organization_id AS "organizationId" FROM templates t
      WHERE ${sweepable(now)} AND t.id <> ALL(${passedOver}::uuid[])
      ORDER BY t.deleted_at LIMIT 1 FOR UPDATE OF t SKIP LOCKED`;
    if (!template) return 'none';
    // A retry that queued one of its documents and let go of the row after this statement's snapshot was taken: seen now.
    const [queued] = await tx.$queryRaw<unknown[]>`
      SELECT 1 FROM templates t WHERE t.id = ${template.id}::uuid AND t.files_purge_started_at IS NULL
        AND EXISTS (SELECT 1 FROM documents d WHERE d.organization_id = t.organization_id AND d.template_id = t.id AND d.status IN ('queued', 'rendering'))`;
    if (queued) return { ...template, busy: true };
    await tx.$executeRaw`UPDATE templates SET files_purge_started_at = now() WHERE id = ${template.id}::uuid`;
    return { ...template, busy: false };
  });
}

async function deleteFiles(deps: { db: Database; storage: FileStorage }, template: DeletedTemplate): Promise<void> {
  const keys = await filesOf(deps.db, deps.storage, template);
  // Used by a template whose sweep has not begun: it may render still (live, or a failed document of it retried); its own sweep takes the file later.
  const stillUsed = new Set(
    (
      await deps.db.$queryRaw<{ key: string }[]>`
        SELECT DISTINCT k AS key FROM templates t JOIN template_versions v ON v.template_id = t.id,
          LATERAL (VALUES (v.file_key), (v.html_file_key)) AS keys(k)
        WHERE t.organization_id = ${template.organizationId}::uuid AND t.id <> ${template.id}::uuid
          AND t.files_purge_started_at IS NULL AND k = ANY(${keys}::text[])`
    ).map((row) => row.key),
  );
  const unused = keys.filter((key) => !stillUsed.has(key));
  for (let i = 0; i < unused.length; i += DELETES_AT_ONCE) {
    await Promise.all(unused.slice(i, i + DELETES_AT_ONCE).map((key) => deps.storage.delete(key)));
  }
}

/** Its stored files (under its own names) and the files its versions point to (a promoted version's are its UAT template's). */
async function filesOf(db: Pick<Database, '$queryRaw'>, storage: FileStorage, template: DeletedTemplate): Promise<string[]> {
  const [named, baselines, pointed] = await Promise.all([
    storage.list(templateFilesPrefix(template.organizationId, template.id)),
    storage.list(templateBaselinesPrefix(template.organizationId, template.id)),
    db.$queryRaw<{ key: string }[]>`
      SELECT k AS key FROM template_versions v, LATERAL (VALUES (v.file_key), (v.html_file_key)) AS keys(k)
      WHERE v.template_id = ${template.id}::uuid AND k IS NOT NULL`,
  ]);
  return [...new Set([...named, ...baselines, ...pointed.map((row) => row.key)])];
}
