import type { Database } from '@docgen/db';

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  organization_id: string;
  organization_name: string;
  rate_limit_per_minute: number;
}

const FIND_KEY = {
  name: 'find-api-key',
  text: `SELECT k.id, k.name, k.prefix, k.expires_at, k.revoked_at, k.last_used_at,
                o.id AS organization_id, o.name AS organization_name, o.rate_limit_per_minute
         FROM api_keys k JOIN organizations o ON o.id = k.organization_id
         WHERE k.key_hash = $1`,
};

/**
 * The key and its organisation in one round trip (an ORM include would take two; bench/).
 * Gateways cache what this returns (apps/gateway/src/api-key-lookups.ts): every write that
 * changes it must move the organisation's key lookup epoch after its commit (`KeyLookupEpochs`).
 */
export const findApiKey = async (db: Database, keyHash: string): Promise<ApiKeyRow | undefined> => (await db.sql.query<ApiKeyRow>(FIND_KEY, [keyHash]))[0];

/** Coarse bookkeeping: the caller writes at most once a minute per key, off the request path. */
export async function recordApiKeyUse(db: Database, keyId: string, at: Date): Promise<void> {
  await db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: at } });
}
