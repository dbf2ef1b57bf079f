import { isUuid } from '@docgen/contracts';
import type { Database, Document } from '@docgen/db';
import { HttpError } from '../errors';
import type { Caller } from '../middleware/authenticate';

export const documentNotFound = () => new HttpError(404, 'Document not found');

/** A document of the caller's organisation in the addressed environment, or 404. */
export async function findDocument(db: Database, caller: Caller, id: string, isUat: boolean): Promise<Document> {
  if (!isUuid(id)) throw documentNotFound();
  const doc = await db.document.findFirst({ where: { id, organizationId: caller.organization.id, isUat } });
  if (!doc) throw documentNotFound();
  return doc;
}
