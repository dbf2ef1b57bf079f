import * as access from '@docgen/access';
import { presentApiKey } from '@docgen/contracts';
import type { Database } from '@docgen/db';
import { CliError } from '../errors';
import { withKeyLookupEpochs } from '../key-lookup-epochs';
import { isoDate, required, type Options } from '../options';
import { findOrganization } from './find-organization';

const iso = (date: Date | null) => date?.toISOString() ?? null;

export async function createKey(db: Database, options: Options, warn: (message: string) => void) {
  const organization = await findOrganization(db, required(options, 'org'));
  const name = required(options, 'name');
  const expiresAt = options.expires === undefined ? null : isoDate(options.expires, 'expires');
  if (expiresAt && expiresAt <= new Date()) warn(`Warning: --expires ${options.expires} is in the past; this key is already expired.`);
  const { apiKey: created, key } = await access.createApiKey(db, { organizationId: organization.id, name, expiresAt });
  warn('Store this key now: it is shown only once.');
  return { id: created.id, name: created.name, key, prefix: created.prefix, expires_at: iso(created.expiresAt) };
}

export async function listKeys(db: Database, options: Options) {
  const organization = await findOrganization(db, required(options, 'org'));
  return { items: (await access.listApiKeys(db, organization.id)).map(presentApiKey) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Idempotent: revoking a revoked key reports when it was revoked. Gateways refuse the key on its next request. */
export async function revokeKey(db: Database, keyId: string | undefined) {
  if (!keyId) throw new CliError('Missing the key id: keys revoke <key-id>', 2);
  if (!UUID.test(keyId)) throw new CliError(`"${keyId}" is not a key id (a UUID from keys list)`);
  // An operator reaches every organisation's keys: no organisation scopes the lookup.
  const revoked = await withKeyLookupEpochs((epochs) => access.revokeApiKey(db, epochs, { id: keyId })).catch((error: unknown) => {
    throw error instanceof access.AccessError && error.code === 'api_key_not_found' ? new CliError(`No API key with id ${keyId}`) : error;
  });
  return { id: revoked.id, revoked_at: iso(revoked.revokedAt) };
}
