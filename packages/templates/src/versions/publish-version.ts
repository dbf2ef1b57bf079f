import { templateNotFound } from '@docgen/documents';
import type { Caller } from '@docgen/access';
import type { Database, Scope, Template } from '@docgen/db';
import { versionNotFound } from '../errors';
import { findTemplate } from '../find-template';
import { actorOf } from '../who';
import { guard, lockTemplate, publish } from './publish-transition';

/**
 * Publishes version `number` (API.md §12): it renders by default from now on; publishing an
 * older version is a rollback. Refused with breaking_change when it would reject inputs the
 * published version accepts, unless `force`. Publishing the published version changes nothing.
 */
export async function publishVersion(
  db: Database,
  caller: Caller,
  scope: Scope,
  templateId: string,
  number: number,
  options: { force?: boolean } = {},
): Promise<Template> {
  const template = await findTemplate(db, scope, templateId);
  return db.$transaction(async (tx) => {
    await lockTemplate(tx, template.id);
    const [target, published, live] = await Promise.all([
      tx.templateVersion.findUnique({ where: { templateId_version: { templateId: template.id, version: number } } }),
      tx.templateVersion.findFirst({ where: { templateId: template.id, status: 'published' } }),
      tx.template.findFirst({ where: { id: template.id, deletedAt: null } }),
    ]);
    if (!live) throw templateNotFound();
    if (!target) throw versionNotFound();
    if (target.status === 'published') return live;
    if (published) guard(published, target, options.force ?? false, `Publishing version ${number}`);
    return publish(tx, target, actorOf(caller));
  });
}
