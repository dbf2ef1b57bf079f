import type { Prisma, Template, TemplateVersion } from '@docgen/db';
import type { TemplateVariable } from '@docgen/templating';
import { TemplatesError } from '../errors';
import { breakingChanges } from './breaking-changes';

type Tx = Prisma.TransactionClient;

/** The template row's copy of its published version: what every reader of a template renders. */
export const mirrorOf = (version: TemplateVersion) => ({
  version: version.version,
  variables: version.variables as object[],
  correctedTokens: version.correctedTokens as object[],
  fileKey: version.fileKey,
  fileSize: version.fileSize,
  htmlFileKey: version.htmlFileKey,
  previewStatus: version.previewStatus,
  previewError: version.previewError,
  promotedFromTemplateId: version.promotedFromTemplateId,
  promotedFromVersion: version.promotedFromVersion,
});

/** The template row, locked until the transaction ends: versions are numbered and published one at a time. */
export async function lockTemplate(tx: Tx, id: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM templates WHERE id = ${id}::uuid FOR UPDATE`;
}

/** 409 breaking_change naming each change, unless forced (API.md §12). */
export function guard(published: TemplateVersion, candidate: { version?: number; variables: unknown }, force: boolean, action: string): void {
  if (force) return;
  const changes = breakingChanges(published.variables as unknown as TemplateVariable[], candidate.variables as unknown as TemplateVariable[]);
  if (changes.length === 0) return;
  const list = changes.map((change) => change.message).join('; ');
  throw new TemplatesError(
    'breaking_change',
    `${action} would reject inputs that version ${published.version} accepts (${changes.length === 1 ? list : `${changes.length} changes: ${list}`}); send "force": true to do it anyway`,
    changes,
  );
}

/**
 * Makes `target` the published version of its template: the one published before becomes
 * superseded, the template's copy follows, and its draft pointer is the newest draft left.
 * Runs inside the caller's transaction, with the template locked.
 */
export async function publish(tx: Tx, target: TemplateVersion, publishedBy: string | null): Promise<Template> {
  await tx.templateVersion.updateMany({ where: { templateId: target.templateId, status: 'published' }, data: { status: 'superseded' } });
  const published = await tx.templateVersion.update({
    where: { id: target.id },
    data: { status: 'published', publishedAt: new Date(), publishedBy },
  });
  const draft = await tx.templateVersion.findFirst({ where: { templateId: target.templateId, status: 'draft' }, orderBy: { version: 'desc' } });
  return tx.template.update({ where: { id: target.templateId }, data: { ...mirrorOf(published), draftVersion: draft?.version ?? null } });
}
