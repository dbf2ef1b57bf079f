import { isUuid } from '@docgen/contracts';
import type { BulkJob, Database } from '@docgen/db';
import { HttpError } from '../errors';
import type { Caller } from '../middleware/authenticate';

export const bulkJobNotFound = () => new HttpError(404, 'Bulk job not found');

/** A bulk job of the caller's organisation in the addressed environment, or 404. */
export async function findBulkJob(db: Database, caller: Caller, id: string, isUat: boolean): Promise<BulkJob> {
  if (!isUuid(id)) throw bulkJobNotFound();
  const bulk = await db.bulkJob.findFirst({ where: { id, organizationId: caller.organization.id, isUat } });
  if (!bulk) throw bulkJobNotFound();
  return bulk;
}
