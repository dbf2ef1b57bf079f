import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '@docgen/db';
import { generateApiKey, generatePassword, hashApiKey, hashPassword, verifyPassword } from '@docgen/security';
import { required, type Options } from '../options';

const DEMO_ORGANIZATION = 'Demo';
const DEMO_KEY_NAME = 'demo (npm start)';
export const DEMO_ADMIN_EMAIL = 'admin@demo.example';

interface DemoFile {
  key?: string;
  admin_email?: string;
  admin_password?: string;
}

async function liveDemoKey(db: Database, organizationId: string, saved: string | undefined): Promise<string> {
  if (saved) {
    const stored = await db.apiKey.findUnique({ where: { keyHash: hashApiKey(saved) } });
    if (stored && stored.organizationId === organizationId && !stored.revokedAt && (!stored.expiresAt || stored.expiresAt > new Date())) return saved;
  }
  const { key, hash, prefix } = generateApiKey();
  await db.apiKey.create({ data: { organizationId, name: DEMO_KEY_NAME, keyHash: hash, prefix } });
  return key;
}

/** The demo admin exists, is an admin of the demo organisation and has the saved password. */
async function demoAdmin(db: Database, organizationId: string, saved: string | undefined): Promise<string> {
  const password = saved ?? generatePassword();
  const user = await db.user.findUnique({ where: { email: DEMO_ADMIN_EMAIL } });
  if (!user) {
    await db.user.create({ data: { email: DEMO_ADMIN_EMAIL, passwordHash: await hashPassword(password) } });
  } else if (!(await verifyPassword(user.passwordHash, password))) {
    // Changed in the UI since: set back, so every start prints a password that works.
    await db.user.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(password) } });
  }
  const { id: userId } = await db.user.findUniqueOrThrow({ where: { email: DEMO_ADMIN_EMAIL } });
  await db.membership.upsert({
    where: { organizationId_userId: { organizationId, userId } },
    update: { role: 'admin' },
    create: { organizationId, userId, role: 'admin' },
  });
  return password;
}

/**
 * For `npm start`: makes sure the demo organisation has a live key and a demo admin who can
 * sign in to the web UI. Both are kept in a local file (never committed) so every start
 * prints the same ones.
 */
export async function seedDemo(db: Database, options: Options) {
  const keyFile = path.resolve(required(options, 'key-file'));
  const organization = await db.organization.upsert({ where: { name: DEMO_ORGANIZATION }, update: {}, create: { name: DEMO_ORGANIZATION } });
  const saved = await readFile(keyFile, 'utf8').then(
    (text) => JSON.parse(text) as DemoFile,
    (): DemoFile => ({}),
  );

  const key = await liveDemoKey(db, organization.id, saved.key);
  const adminPassword = await demoAdmin(db, organization.id, saved.admin_password);
  const file: DemoFile = { key, admin_email: DEMO_ADMIN_EMAIL, admin_password: adminPassword };
  const changed = JSON.stringify(file) !== JSON.stringify({ key: saved.key, admin_email: saved.admin_email, admin_password: saved.admin_password });
  if (changed) {
    await mkdir(path.dirname(keyFile), { recursive: true });
    await writeFile(keyFile, `${JSON.stringify(file)}\n`, { mode: 0o600 });
  }
  return { organization_id: organization.id, key, admin_email: DEMO_ADMIN_EMAIL, admin_password: adminPassword, created: changed };
}
