import type { Database, Scope, Template, TemplateVersion } from '@docgen/db';
import type { FileStorage } from '@docgen/storage';
import { versionNotFound } from '../errors';
import { findTemplate } from '../find-template';
import { sha256 } from '../prepare-upload';

/**
 * Versions migrated from before versions existed have no fingerprint yet: it is taken from
 * the stored file the first time the version is shown (the file never changes under its key).
 */
async function withFingerprint(db: Database, storage: FileStorage, version: TemplateVersion): Promise<TemplateVersion> {
  if (version.fileSha256) return version;
  const fileSha256 = sha256(await storage.get(version.fileKey));
  await db.templateVersion.updateMany({ where: { id: version.id, fileSha256: null }, data: { fileSha256 } });
  return { ...version, fileSha256 };
}

/** A template's versions, newest first. */
export async function listVersions(deps: { db: Database; storage: FileStorage }, scope: Scope, templateId: string): Promise<TemplateVersion[]> {
  const template = await findTemplate(deps.db, scope, templateId);
  const versions = await deps.db.templateVersion.findMany({ where: { templateId: template.id }, orderBy: { version: 'desc' } });
  return Promise.all(versions.map((version) => withFingerprint(deps.db, deps.storage, version)));
}

/** One version of a template of the caller's, or version_not_found. */
export async function findVersion(
  deps: { db: Database; storage: FileStorage },
  scope: Scope,
  templateId: string,
  number: number,
): Promise<{ template: Template; version: TemplateVersion }> {
  const template = await findTemplate(deps.db, scope, templateId);
  const version = await deps.db.templateVersion.findUnique({ where: { templateId_version: { templateId: template.id, version: number } } });
  if (!version) throw versionNotFound();
  return { template, version: await withFingerprint(deps.db, deps.storage, version) };
}

/**
 * Every published version of live templates, oldest template first: what renders by default
 * (the rendering-drift check re-renders each). `organizationId` narrows it to one organisation.
 */
export async function listPublishedVersions(
  db: Database,
  options: { organizationId?: string } = {},
): Promise<(TemplateVersion & { template: Pick<Template, 'id' | 'organizationId' | 'name' | 'format' | 'isUat' | 'locale'> })[]> {
  return db.templateVersion.findMany({
    where: { status: 'published', template: { deletedAt: null, ...(options.organizationId ? { organizationId: options.organizationId } : {}) } },
    include: { template: { select: { id: true, organizationId: true, name: true, format: true, isUat: true, locale: true } } },
    orderBy: [{ template: { createdAt: 'asc' } }, { templateId: 'asc' }],
  });
}
