import { isUuid } from '@docgen/contracts';
import type { ApiKey, Database } from '@docgen/db';
import { apiKeyNotFound } from '../errors';

/**
 * Revokes a key; revoking a revoked key keeps its first `revoked_at`. Keys are looked up on
 * every request, so the next request with it is 401 on every replica. `organizationId`
 * scopes the lookup (the API: another organisation's key is not found); the operator CLI
 * passes none and reaches every organisation's keys.
 */
export async function revokeApiKey(db: Database, input: { id: string; organizationId?: string }): Promise<ApiKey> {
  if (!isUuid(input.id)) throw apiKeyNotFound();
  const where = { id: input.id, ...(input.organizationId ? { organizationId: input.organizationId } : {}) };
  await db.apiKey.updateMany({ where: { ...where, revokedAt: null }, data: { revokedAt: new Date() } });
  const key = await db.apiKey.findFirst({ where });
  if (!key) throw apiKeyNotFound();
  return key;
}
