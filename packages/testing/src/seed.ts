import type { Database } from '@docgen/db';
import { generateApiKey } from '@docgen/security';
import { uniqueId } from './paths';

export interface SeededOrganization {
  organizationId: string;
  apiKeyId: string;
  apiKey: string;
}

/** An organisation with one live API key, as the CLI would create them. */
export async function seedOrganization(
  db: Database,
  options: { name?: string; rateLimitPerMinute?: number; keyExpiresAt?: Date } = {},
): Promise<SeededOrganization> {
  const key = generateApiKey();
  const organization = await db.organization.create({
    data: {
      name: options.name ?? `org-${uniqueId()}`,
      ...(options.rateLimitPerMinute ? { rateLimitPerMinute: options.rateLimitPerMinute } : {}),
      apiKeys: { create: { name: 'test', keyHash: key.hash, prefix: key.prefix, expiresAt: options.keyExpiresAt ?? null } },
    },
    include: { apiKeys: true },
  });
  return { organizationId: organization.id, apiKeyId: organization.apiKeys[0]!.id, apiKey: key.key };
}
