import type { Caller } from '@docgen/access';
import type { Database, Template } from '@docgen/db';
import { findTemplate as findOwnedTemplate } from '@docgen/templates';

/** A live template of the caller's organisation in the addressed environment, or 404. */
export const findTemplate = (db: Database, caller: Caller, id: string, isUat: boolean): Promise<Template> =>
  findOwnedTemplate(db, { organizationId: caller.organization.id, isUat }, id);
