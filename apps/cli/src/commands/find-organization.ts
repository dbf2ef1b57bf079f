import type { Database, Organization } from '@docgen/db';
import { CliError } from '../errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `--org` takes an organisation's id or its name. */
export async function findOrganization(db: Database, idOrName: string): Promise<Organization> {
  const organization = UUID.test(idOrName)
    ? await db.organization.findUnique({ where: { id: idOrName } })
    : await db.organization.findUnique({ where: { name: idOrName } });
  if (!organization) throw new CliError(`No organisation with id or name "${idOrName}"`);
  return organization;
}
