import { randomBytes } from 'node:crypto';
import { addMember, type Database } from '@docgen/db';
import { hashPassword } from '@docgen/security';

/** A person of the organisation with a known password, as `docgen users create` makes one. */
export async function createUser(db: Database, organizationId: string, email: string, role: 'admin' | 'member'): Promise<{ id: string; email: string; password: string }> {
  const password = randomBytes(12).toString('base64url');
  const { user } = await addMember(db, { organizationId, email, role, passwordHash: await hashPassword(password) });
  return { id: user.id, email, password };
}
