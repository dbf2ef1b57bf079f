import { templateNotFound } from '@docgen/documents';
import type { Caller } from '@docgen/access';
import type { Database, Scope, Template, TemplateVersion } from '@docgen/db';
import { TemplatesError } from '../errors';
import { findTemplate } from '../find-template';
import { actorOf } from '../who';
import { guard, lockTemplate, mirrorOf, publish } from './publish-transition';

/** The live production template a UAT template was promoted to, if any. */
async function promotedTo(tx: Pick<Database, 'template'>, uat: Template): Promise<Template | null> {
  return tx.template.findFirst({
    where: { organizationId: uat.organizationId, isUat: false, deletedAt: null, versions: { some: { promotedFromTemplateId: uat.id } } },
    orderBy: { createdAt: 'asc' },
  });
}

const isLive = async (tx: Pick<Database, 'template'>, id: string) => (await tx.template.count({ where: { id, deletedAt: null } })) === 1;

/** The version's file and settings as a new version of another template (files are shared: a version's file never changes). */
const copyOf = (source: TemplateVersion) => ({
  variables: source.variables as object[],
  correctedTokens: source.correctedTokens as object[],
  fileKey: source.fileKey,
  fileSize: source.fileSize,
  fileSha256: source.fileSha256,
  htmlFileKey: source.htmlFileKey,
  promotedFromTemplateId: source.templateId,
  promotedFromVersion: source.version,
});

/**
 * Promotes a UAT template's published version to production (API.md §12): on the first
 * promotion a production template of the same name is created with it as version 1; after
 * that it becomes the production template's next version, published, guarded against
 * breaking changes like a publish. Promoting the version production already has from it
 * changes nothing. Returns the production template.
 */
export async function promoteTemplate(db: Database, caller: Caller, scope: Scope, templateId: string, options: { force?: boolean } = {}): Promise<Template> {
  const uat = await findTemplate(db, scope, templateId);
  if (!uat.isUat) {
    throw new TemplatesError('validation_failed', 'Only a UAT template can be promoted; address it with is_uat=true', [
      { path: 'is_uat', message: 'must be true: production templates are promoted to, not from' },
    ]);
  }
  const who = actorOf(caller);
  return db.$transaction(async (tx) => {
    // Read again under each lock: a template deleted before it was taken is gone for the promotion too.
    await lockTemplate(tx, uat.id);
    if (!(await isLive(tx, uat.id))) throw templateNotFound();
    const source = await tx.templateVersion.findFirst({ where: { templateId: uat.id, status: 'published' } });
    if (!source) throw templateNotFound();
    let existing = await promotedTo(tx, uat);
    if (existing) {
      await lockTemplate(tx, existing.id);
      if (!(await isLive(tx, existing.id))) existing = null; // deleted meanwhile: promoted as for the first time
    }
    if (!existing) {
      const now = new Date();
      const version = { version: 1, status: 'published', ...copyOf(source), createdBy: who, publishedAt: now, publishedBy: who };
      return tx.template.create({
        data: {
          organizationId: uat.organizationId,
          name: uat.name,
          format: uat.format,
          isUat: false,
          locale: uat.locale,
          ...mirrorOf({ ...version, id: '', templateId: '', createdAt: now, previewStatus: null, previewError: null } as TemplateVersion),
          versions: { create: version },
        },
      });
    }
    const published = await tx.templateVersion.findFirst({ where: { templateId: existing.id, status: 'published' } });
    if (published?.promotedFromTemplateId === uat.id && published.promotedFromVersion === source.version) return existing;
    if (published) guard(published, source, options.force ?? false, `Promoting version ${source.version} of the UAT template`);
    const newest = await tx.templateVersion.aggregate({ where: { templateId: existing.id }, _max: { version: true } });
    const added = await tx.templateVersion.create({
      data: { templateId: existing.id, version: (newest._max.version ?? 0) + 1, status: 'draft', ...copyOf(source), createdBy: who },
    });
    return publish(tx, added, who);
  });
}
