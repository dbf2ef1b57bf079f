import { findOwned, type Database, type Scope, type Template } from '@docgen/db';
import { templateNotFound } from '@docgen/documents';

/** A live template of the caller's organisation in the addressed environment, or template_not_found. */
export const findTemplate = (db: Database, scope: Scope, id: string): Promise<Template> =>
  findOwned((where) => db.template.findFirst({ where: { ...where, deletedAt: null } }), scope, id, templateNotFound);
