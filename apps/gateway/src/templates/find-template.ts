import { findOwned, type Database, type Template } from '@docgen/db';
import { templateNotFound } from '@docgen/documents';
import type { Caller } from '@docgen/access';

/** A live template of the caller's organisation in the addressed environment, or 404. */
export const findTemplate = (db: Database, caller: Caller, id: string, isUat: boolean): Promise<Template> =>
  findOwned(
    (where) => db.template.findFirst({ where: { ...where, deletedAt: null } }),
    { organizationId: caller.organization.id, isUat },
    id,
    templateNotFound,
  );
