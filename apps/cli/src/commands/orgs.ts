import * as access from '@docgen/access';
import type { Database, Organization } from '@docgen/db';
import { CliError } from '../errors';
import { withKeyLookupEpochs } from '../key-lookup-epochs';
import { positiveInteger, required, type Options } from '../options';
import { findOrganization } from './find-organization';

const present = (organization: Organization) => ({
  id: organization.id,
  name: organization.name,
  rate_limit_per_minute: organization.rateLimitPerMinute,
});

export async function createOrganization(db: Database, options: Options) {
  const name = required(options, 'name').trim();
  const rateLimit = options['rate-limit'] === undefined ? undefined : positiveInteger(options['rate-limit'], 'rate-limit');
  const organization = await access.createOrganization(db, { name, rateLimitPerMinute: rateLimit }).catch((error: unknown) => {
    throw error instanceof access.AccessError ? new CliError(error.message) : error;
  });
  return present(organization);
}

export async function listOrganizations(db: Database) {
  const organizations = await db.organization.findMany({ orderBy: { createdAt: 'asc' } });
  return { items: organizations.map(present) };
}

export async function setRateLimit(db: Database, options: Options) {
  const organization = await findOrganization(db, required(options, 'org'));
  const perMinute = positiveInteger(required(options, 'per-minute'), 'per-minute');
  return present(await withKeyLookupEpochs((epochs) => access.setRateLimit(db, epochs, organization.id, perMinute)));
}
