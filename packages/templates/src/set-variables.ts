import { templateNotFound } from '@docgen/documents';
import type { TemplateVariableBody, VariablesPatch } from '@docgen/contracts';
import type { Database, Scope, Template } from '@docgen/db';
import type { z } from 'zod';
import { invalid, versionNotFound } from './errors';
import { findTemplate } from './find-template';
import { updateVariables } from './update-variables';
import { lockTemplate } from './versions/publish-transition';

/**
 * `PATCH .../variables` (API.md §12): variable settings belong to a version. Without
 * `version` the published one is edited (and the template's copy with it); with it, a draft
 * (or the published one). A superseded version is history and is not edited.
 */
export async function setVariables(
  db: Database,
  scope: Scope,
  templateId: string,
  patch: z.output<typeof VariablesPatch>['variables'],
  number?: number,
): Promise<Template> {
  const template = await findTemplate(db, scope, templateId);
  return db.$transaction(async (tx) => {
    await lockTemplate(tx, template.id);
    const current = await tx.template.findFirst({ where: { id: template.id, deletedAt: null } });
    if (!current) throw templateNotFound();
    const version = await tx.templateVersion.findUnique({ where: { templateId_version: { templateId: template.id, version: number ?? current.version } } });
    if (!version) throw versionNotFound();
    if (version.status === 'superseded') {
      throw invalid([{ path: 'version', message: `Version ${version.version} is superseded; only the published version and drafts can be edited` }]);
    }
    const variables = updateVariables(version.variables as TemplateVariableBody[], patch);
    await tx.templateVersion.update({ where: { id: version.id }, data: { variables } });
    if (version.status !== 'published') return current;
    return tx.template.update({ where: { id: template.id }, data: { variables } });
  });
}
