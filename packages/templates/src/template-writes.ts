import type { Database, Scope, Template } from '@docgen/db';
import { findTemplate } from './find-template';

/** `PATCH /templates/{id}`: the locale (BCP 47, already checked and canonical) its numbers and dates render in. */
export async function setLocale(db: Database, scope: Scope, templateId: string, locale: string | undefined): Promise<Template> {
  const template = await findTemplate(db, scope, templateId);
  if (locale === undefined) return template;
  return db.template.update({ where: { id: template.id }, data: { locale } });
}

/**
 * `DELETE /templates/{id}`: the template is gone for callers; its documents stay readable,
 * and its versions' files stay (a document may have been rendered from any of them).
 */
export async function deleteTemplate(db: Database, scope: Scope, templateId: string): Promise<void> {
  const template = await findTemplate(db, scope, templateId);
  await db.template.update({ where: { id: template.id }, data: { deletedAt: new Date() } });
}
