import type { Database, Scope, Template } from '@docgen/db';
import { findTemplate } from './find-template';

/** `PATCH /templates/{id}`: the name and the locale (BCP 47, already checked and canonical), each when given. */
export async function setTemplateSettings(db: Database, scope: Scope, templateId: string, settings: { name?: string; locale?: string }): Promise<Template> {
  const template = await findTemplate(db, scope, templateId);
  if (settings.name === undefined && settings.locale === undefined) return template;
  return db.template.update({ where: { id: template.id }, data: settings });
}

/**
 * `DELETE /templates/{id}`: the template is gone for callers; its documents stay readable,
 * and its versions' files stay (a document may have been rendered from any of them).
 */
export async function deleteTemplate(db: Database, scope: Scope, templateId: string): Promise<void> {
  const template = await findTemplate(db, scope, templateId);
  // The database's clock, as the deleted-template sweep's grace reads it (a gateway's clock, or a Date sent to a
  // database whose TimeZone is not UTC, could put the delete hours early).
  await db.$executeRaw`UPDATE templates SET deleted_at = now(), updated_at = now() WHERE id = ${template.id}::uuid AND deleted_at IS NULL`;
}
