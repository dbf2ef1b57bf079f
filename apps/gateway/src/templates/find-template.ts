import { isUuid } from '@docgen/contracts';
import type { Database, Template } from '@docgen/db';
import { HttpError } from '../errors';
import type { Caller } from '../middleware/authenticate';

export const templateNotFound = () => new HttpError(404, 'Template not found');

/** A live template of the caller's organisation in the addressed environment, or 404. */
export async function findTemplate(db: Database, caller: Caller, id: string, isUat: boolean): Promise<Template> {
  if (!isUuid(id)) throw templateNotFound();
  const template = await db.template.findFirst({
    where: { id, organizationId: caller.organization.id, isUat, deletedAt: null },
  });
  if (!template) throw templateNotFound();
  return template;
}
