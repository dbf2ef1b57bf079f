import type { ApiKey, Database } from '@docgen/db';
import { generateApiKey } from '@docgen/security';

/** A new key of the organisation; its value is returned here and never stored (only its hash). */
export async function createApiKey(
  db: Database,
  input: { organizationId: string; name: string; expiresAt: Date | null },
): Promise<{ apiKey: ApiKey; key: string }> {
  const { key, hash, prefix } = generateApiKey();
  const apiKey = await db.apiKey.create({
    data: { organizationId: input.organizationId, name: input.name, keyHash: hash, prefix, expiresAt: input.expiresAt },
  });
  return { apiKey, key };
}
