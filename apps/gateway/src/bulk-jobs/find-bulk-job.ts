import { findOwned, type BulkJob, type Database } from '@docgen/db';
import { bulkJobNotFound } from '@docgen/documents';
import type { Caller } from '@docgen/access';

/** A bulk job of the caller's organisation in the addressed environment, or 404. */
export const findBulkJob = (db: Database, caller: Caller, id: string, isUat: boolean): Promise<BulkJob> =>
  findOwned((where) => db.bulkJob.findFirst({ where }), { organizationId: caller.organization.id, isUat }, id, bulkJobNotFound);
