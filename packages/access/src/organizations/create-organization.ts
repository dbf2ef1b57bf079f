import { isUniqueViolation, type Database, type Organization } from '@docgen/db';
import type { KeyLookupEpochs } from '../api-keys/key-lookup-epoch';
import { AccessError } from '../errors';

/** A new organisation (tenant); names are unique. */
export async function createOrganization(db: Database, input: { name: string; rateLimitPerMinute?: number }): Promise<Organization> {
  try {
    return await db.organization.create({ data: { name: input.name, ...(input.rateLimitPerMinute ? { rateLimitPerMinute: input.rateLimitPerMinute } : {}) } });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AccessError('organization_exists', `An organisation named "${input.name}" already exists`);
    throw error;
  }
}

/**
 * The organisation's requests per rate-limit window, effective on its next request on every
 * replica: API-key lookups carry the limit, so the key lookup epoch moves before this returns.
 */
export async function setRateLimit(db: Database, epochs: KeyLookupEpochs, organizationId: string, perMinute: number): Promise<Organization> {
  const organization = await db.organization.update({ where: { id: organizationId }, data: { rateLimitPerMinute: perMinute } });
  await epochs.bump(organizationId);
  return organization;
}
