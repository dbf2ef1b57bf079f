import { findOwned, type Database, type Document } from '@docgen/db';
import { documentNotFound } from '@docgen/documents';
import type { Caller } from '@docgen/access';

/** A document of the caller's organisation in the addressed environment, or 404. */
export const findDocument = (db: Database, caller: Caller, id: string, isUat: boolean): Promise<Document> =>
  findOwned((where) => db.document.findFirst({ where }), { organizationId: caller.organization.id, isUat }, id, documentNotFound);
