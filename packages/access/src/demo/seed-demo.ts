import type { Database } from '@docgen/db';
import { generateApiKey, generatePassword, hashApiKey, hashPassword, verifyPassword } from '@docgen/security';

export interface DemoAccess {
  organizationName: string;
  keyName: string;
  adminEmail: string;
  /** What an earlier run handed out, if anything: kept when still good, so every start prints the same. */
  savedKey?: string;
  savedPassword?: string;
}

async function liveDemoKey(db: Database, organizationId: string, keyName: string, saved: string | undefined): Promise<string> {
  if (saved) {
    const stored = await db.apiKey.findUnique({ where: { keyHash: hashApiKey(saved) } });
    if (stored && stored.organizationId === organizationId && !stored.revokedAt && (!stored.expiresAt || stored.expiresAt > new Date())) return saved;
  }
  const { key, hash, prefix } = generateApiKey();
  await db.apiKey.create({ data: { organizationId, name: keyName, keyHash: hash, prefix } });
  return key;
}

/** The demo admin exists, is an admin of the demo organisation and has the saved password. */
async function demoAdmin(db: Database, organizationId: string, email: string, saved: string | undefined): Promise<string> {
  const password = saved ?? generatePassword();
  const user = await db.user.findUnique({ where: { email } });
  if (!user) {
    await db.user.create({ data: { email, passwordHash: await hashPassword(password) } });
  } else if (!(await verifyPassword(user.passwordHash, password))) {
    // Changed in the UI since: set back, so every start prints a password that works.
    await db.user.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(password) } });
  }
  const { id: userId } = await db.user.findUniqueOrThrow({ where: { email } });
  await db.membership.upsert({
    where: { organizationId_userId: { organizationId, userId } },
    update: { role: 'admin' },
    create: { organizationId, userId, role: 'admin' },
  });
  return password;
}

/** For `npm start`: the demo organisation, a live key of it and a demo admin who can sign in. */
export async function seedDemoAccess(db: Database, demo: DemoAccess): Promise<{ organizationId: string; key: string; adminPassword: string }> {
  const organization = await db.organization.upsert({ where: { name: demo.organizationName }, update: {}, create: { name: demo.organizationName } });
  const key = await liveDemoKey(db, organization.id, demo.keyName, demo.savedKey);
  const adminPassword = await demoAdmin(db, organization.id, demo.adminEmail, demo.savedPassword);
  return { organizationId: organization.id, key, adminPassword };
}
