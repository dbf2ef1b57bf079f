import type { Readable } from 'node:stream';
import type { Queue } from 'bullmq';
import type { Database, Template, TemplateVersion } from '@docgen/db';
import { queuePreview, type TemplatePreviewJob } from '@docgen/queue';
import { FileNotFoundError, templateVersionPreviewKey, type FileStorage } from '@docgen/storage';
import { TemplatesError } from './errors';

export type PreviewAnswer = { ready: true; stream: Readable; size: number } | { ready: false };

export interface PreviewDeps {
  db: Database;
  storage: FileStorage;
  previews: Queue<TemplatePreviewJob>;
}

/**
 * The stored first page of a template's published version (`version` absent) or of one
 * version, or the news that it is being prepared: it is queued whenever it is asked for and
 * not there (templates stored before previews existed, a queue that lost its job, a file
 * gone from storage). A preview that could not be rendered is no_preview saying why; it is
 * not tried again.
 */
export async function templatePreview(deps: PreviewDeps, template: Template, version?: TemplateVersion): Promise<PreviewAnswer> {
  const { previewStatus, previewError } = version ?? template;
  const number = version?.version ?? template.version;
  if (previewStatus === 'failed') {
    throw new TemplatesError('no_preview', `This template has no preview: its first page could not be rendered (${previewError ?? 'unknown reason'})`);
  }
  if (previewStatus === 'ready') {
    try {
      const { stream, size } = await deps.storage.open(templateVersionPreviewKey(template.organizationId, template.id, number));
      return { ready: true, stream, size };
    } catch (error) {
      if (!(error instanceof FileNotFoundError)) throw error;
    }
  }
  // Only over what was read, of the version it was read from: a worker that settled it since then is not undone.
  await requestPreview(deps, template.id, number, previewStatus as PreviewStatus | null);
  return { ready: false };
}

/**
 * Marks a version's preview pending (the published version's when `version` is absent, and
 * the template's copy when it is the published one) and queues it; a job already queued is
 * not queued twice. With `seen` (the status the caller read of that version), only over that
 * status: a preview a worker made ready or failed since then is left as it is and nothing is
 * queued (one it finishes between this mark and the queueing is still rendered again).
 */
export async function requestPreview(
  deps: Pick<PreviewDeps, 'db' | 'previews'>,
  templateId: string,
  version?: number,
  seen?: PreviewStatus | null,
): Promise<void> {
  // Always one job per version: a job named after the template alone would carry one version's fate to the next.
  const number = version ?? (await deps.db.template.findUnique({ where: { id: templateId }, select: { version: true } }))?.version;
  if (number === undefined) return; // the template is gone
  if (!(await markPreview(deps.db, templateId, number, 'pending', null, seen === undefined ? {} : { onlyIf: seen }))) return;
  const queued = await queuePreview(deps.previews, templateId, number).catch(() => {
    throw new TemplatesError('queue_unavailable', 'The job queue (Redis) is unreachable');
  });
  if (queued === 'stalled') {
    await markPreview(deps.db, templateId, number, 'failed', 'the render worker stopped while rendering it; upload the template again', { onlyIf: 'pending' });
  }
}

export type PreviewStatus = 'pending' | 'ready' | 'failed';

/**
 * A version's preview state, and the template's copy of it when that version is the
 * published one, in one statement. Plain SQL: the template itself has not changed, so its
 * updated_at stays. `pending` is not written over `pending` (nor its error cleared). With
 * `onlyIf`, only over that status (null: never asked for). Both rows are locked first (the
 * template before the version, as publishing does) and every decision is taken on the locked
 * rows, so a publish that committed meanwhile is seen; the copy is made the version's state
 * whether or not it changed (a copy that drifted heals). True when the version's preview is
 * `status` afterwards.
 */
export async function markPreview(
  db: Database,
  templateId: string,
  version: number,
  status: PreviewStatus,
  reason: string | null,
  { onlyIf }: { onlyIf?: PreviewStatus | null } = {},
): Promise<boolean> {
  const error = reason?.slice(0, 500) ?? null;
  const conditional = onlyIf !== undefined;
  const [row] = await db.$queryRaw<{ marked: boolean }[]>`
    WITH target AS (
      SELECT t.id, t.version AS published, t.preview_status AS copy_status, t.preview_error AS copy_error,
        v.version, v.preview_status AS before, v.preview_error AS before_error
      FROM templates t JOIN template_versions v ON v.template_id = t.id AND v.version = ${version}::int
      WHERE t.id = ${templateId}::uuid FOR NO KEY UPDATE OF t, v
    ), decided AS (
      SELECT target.*, before IS DISTINCT FROM ${status}::text AND (NOT ${conditional} OR before IS NOT DISTINCT FROM ${onlyIf ?? null}::text) AS change
      FROM target
    ), after AS (
      SELECT decided.*, CASE WHEN change THEN ${status}::text ELSE before END AS status, CASE WHEN change THEN ${error}::text ELSE before_error END AS error
      FROM decided
    ), marked AS (
      UPDATE template_versions v SET preview_status = after.status, preview_error = after.error
      FROM after WHERE v.template_id = after.id AND v.version = after.version AND after.change
    ), copied AS (
      UPDATE templates t SET preview_status = after.status, preview_error = after.error
      FROM after WHERE t.id = after.id AND after.published = after.version
        AND (after.copy_status, after.copy_error) IS DISTINCT FROM (after.status, after.error)
    )
    SELECT EXISTS (SELECT 1 FROM after WHERE status = ${status}::text) AS marked`;
  return row?.marked ?? false;
}

/** What a render worker needs to draw a version's first page; undefined when the template is gone. */
export async function versionForPreview(
  db: Database,
  templateId: string,
  version?: number,
): Promise<(Pick<TemplateVersion, 'version' | 'fileKey' | 'htmlFileKey'> & { organizationId: string; templateId: string }) | undefined> {
  const template = await db.template.findUnique({ where: { id: templateId } });
  if (!template || template.deletedAt) return undefined;
  const row = await db.templateVersion.findUnique({ where: { templateId_version: { templateId, version: version ?? template.version } } });
  if (!row) return undefined;
  return { organizationId: template.organizationId, templateId, version: row.version, fileKey: row.fileKey, htmlFileKey: row.htmlFileKey };
}
