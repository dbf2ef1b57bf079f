import { AccessError, ROLES, addMember, type Role } from '@docgen/access';
import type { Database } from '@docgen/db';
import { generatePassword, hashPassword } from '@docgen/security';
import { CliError } from '../errors';
import { required, type Options } from '../options';
import { findOrganization } from './find-organization';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A person who signs in to the web UI; the generated password is shown only here. */
export async function createUser(db: Database, options: Options, warn: (message: string) => void) {
  const organization = await findOrganization(db, required(options, 'org'));
  const email = required(options, 'email').trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw new CliError(`--email must be an email address (got "${options.email}")`);
  const role = (options.role ?? 'member') as Role;
  if (!ROLES.includes(role)) throw new CliError(`--role must be admin or member (got "${options.role}")`);
  const password = generatePassword();
  try {
    const { user, membership } = await addMember(db, { organizationId: organization.id, email, role, passwordHash: await hashPassword(password) });
    warn('Hand this password over now: it is shown only once. It can be changed after signing in.');
    return { id: user.id, email: user.email, role: membership.role, password };
  } catch (error) {
    if (error instanceof AccessError) throw new CliError(error.message);
    throw error;
  }
}
