import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { seedDemoAccess } from '@docgen/access';
import type { Database } from '@docgen/db';
import { required, type Options } from '../options';

const DEMO_ORGANIZATION = 'Demo';
const DEMO_KEY_NAME = 'demo (npm start)';
export const DEMO_ADMIN_EMAIL = 'admin@demo.example';

interface DemoFile {
  key?: string;
  admin_email?: string;
  admin_password?: string;
}

/**
 * For `npm start`: makes sure the demo organisation has a live key and a demo admin who can
 * sign in to the web UI. Both are kept in a local file (never committed) so every start
 * prints the same ones.
 */
export async function seedDemo(db: Database, options: Options) {
  const keyFile = path.resolve(required(options, 'key-file'));
  const saved = await readFile(keyFile, 'utf8').then(
    (text) => JSON.parse(text) as DemoFile,
    (): DemoFile => ({}),
  );

  const { organizationId, key, adminPassword } = await seedDemoAccess(db, {
    organizationName: DEMO_ORGANIZATION,
    keyName: DEMO_KEY_NAME,
    adminEmail: DEMO_ADMIN_EMAIL,
    savedKey: saved.key,
    savedPassword: saved.admin_password,
  });
  const file: DemoFile = { key, admin_email: DEMO_ADMIN_EMAIL, admin_password: adminPassword };
  const changed = JSON.stringify(file) !== JSON.stringify({ key: saved.key, admin_email: saved.admin_email, admin_password: saved.admin_password });
  if (changed) {
    await mkdir(path.dirname(keyFile), { recursive: true });
    await writeFile(keyFile, `${JSON.stringify(file)}\n`, { mode: 0o600 });
  }
  return { organization_id: organizationId, key, admin_email: DEMO_ADMIN_EMAIL, admin_password: adminPassword, created: changed };
}
