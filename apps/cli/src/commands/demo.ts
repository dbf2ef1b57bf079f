import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '@docgen/db';
import { generateApiKey, hashApiKey } from '@docgen/security';
import { required, type Options } from '../options';

const DEMO_ORGANIZATION = 'Demo';
const DEMO_KEY_NAME = 'demo (npm start)';

/**
 * For `npm start`: makes sure the demo organisation has a live key. The key is kept in a
 * local file (never committed) so every start prints the same one while it stays valid.
 */
export async function seedDemo(db: Database, options: Options) {
  const keyFile = path.resolve(required(options, 'key-file'));
  const organization = await db.organization.upsert({ where: { name: DEMO_ORGANIZATION }, update: {}, create: { name: DEMO_ORGANIZATION } });

  const saved = await readFile(keyFile, 'utf8').then((text) => JSON.parse(text) as { key?: string }, () => ({ key: undefined }));
  if (saved.key) {
    const stored = await db.apiKey.findUnique({ where: { keyHash: hashApiKey(saved.key) } });
    if (stored && stored.organizationId === organization.id && !stored.revokedAt && (!stored.expiresAt || stored.expiresAt > new Date())) {
      return { organization_id: organization.id, key: saved.key, created: false };
    }
  }
  const { key, hash, prefix } = generateApiKey();
  await db.apiKey.create({ data: { organizationId: organization.id, name: DEMO_KEY_NAME, keyHash: hash, prefix } });
  await mkdir(path.dirname(keyFile), { recursive: true });
  await writeFile(keyFile, `${JSON.stringify({ key })}\n`, { mode: 0o600 });
  return { organization_id: organization.id, key, created: true };
}
