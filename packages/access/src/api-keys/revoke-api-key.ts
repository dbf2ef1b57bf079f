import { isUuid } from '@docgen/contracts';
import type { ApiKey, Database } from '@docgen/db';
import { apiKeyNotFound } from '../errors';
import type { KeyLookupEpochs } from './key-lookup-epoch';

/**
 * Revokes a key; revoking a revoked key keeps its first `revoked_at` (and moves the epoch
 * again, so repeating a revoke whose answer was an error finishes it). The organisation's key
 * lookup epoch moves after the commit and before this returns, so the next request with the
 * key is 401 on every replica, cached or not. `organizationId` scopes the lookup (the API:
 * another organisation's key is not found); the operator CLI passes none and reaches every
 * organisation's keys.
 */
export async function revokeApiKey(db: Database, epochs: KeyLookupEpochs, input: { id: string; organizationId?: string }): Promise<ApiKey> {
  if (!isUuid(input.id)) throw apiKeyNotFound();
  const where = { id: input.id, ...(input.organizationId ? { organizationId: input.organizationId } : {}) };
  await db.apiKey.updateMany({ where: { ...where, revokedAt: null }, data: { revokedAt: new Date() } });
  const key = await db.apiKey.findFirst({ where });
  if (!key) throw apiKeyNotFound();
  await epochs.bump(key.organizationId);
  return key;
}
