import { presentApiKey } from '@docgen/contracts';
import type { Database } from '@docgen/db';
import { generateApiKey } from '@docgen/security';
import { CliError } from '../errors';
import { isoDate, required, type Options } from '../options';
import { findOrganization } from './find-organization';

const iso = (date: Date | null) => date?.toISOString() ?? null;

export async function createKey(db: Database, options: Options, warn: (message: string) => void) {
  const organization = await findOrganization(db, required(options, 'org'));
  const name = required(options, 'name');
  const expiresAt = options.expires === undefined ? null : isoDate(options.expires, 'expires');
  if (expiresAt && expiresAt <= new Date()) warn(`Warning: --expires ${options.expires} is in the past; this key is already expired.`);
  const { key, hash, prefix } = generateApiKey();
  const created = await db.apiKey.create({ data: { organizationId: organization.id, name, keyHash: hash, prefix, expiresAt } });
  warn('Store this key now: it is shown only once.');
  return { id: created.id, name: created.name, key, prefix: created.prefix, expires_at: iso(created.expiresAt) };
}

export async function listKeys(db: Database, options: Options) {
  const organization = await findOrganization(db, required(options, 'org'));
  const keys = await db.apiKey.findMany({ where: { organizationId: organization.id }, orderBy: { createdAt: 'asc' } });
  return { items: keys.map(presentApiKey) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Idempotent: revoking a revoked key reports when it was revoked. */
export async function revokeKey(db: Database, keyId: string | undefined) {
  if (!keyId) throw new CliError('Missing the key id: keys revoke <key-id>', 2);
  if (!UUID.test(keyId)) throw new CliError(`"${keyId}" is not a key id (a UUID from keys list)`);
  const key = await db.apiKey.findUnique({ where: { id: keyId } });
  if (!key) throw new CliError(`No API key with id ${keyId}`);
  const revoked = key.revokedAt ? key : await db.apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() } });
  return { id: revoked.id, revoked_at: iso(revoked.revokedAt) };
}
