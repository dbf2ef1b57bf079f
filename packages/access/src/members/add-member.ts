import { isUniqueViolation, type Database, type Membership, type User } from '@docgen/db';
import { AccessError } from '../errors';
import type { Role } from '../roles';

/** Why a person could not be added (`member_conflict`); the gateway answers with it and the CLI prints it. */
const memberConflict = (reason: 'already-member' | 'other-organization') =>
  new AccessError(
    'member_conflict',
    reason === 'already-member'
      ? 'This email is already a member of the organisation'
      : 'This email already has an account in another organisation; an operator can add it there',
  );

/**
 * Creates a user with the given password hash and their membership, in one transaction.
 * An email that has an account in another organisation is refused rather than given a new
 * password: that would let one organisation's admin take over a person of another.
 */
export async function addMember(
  db: Database,
  input: { organizationId: string; email: string; role: Role; passwordHash: string },
): Promise<{ user: User; membership: Membership }> {
  const email = input.email.trim().toLowerCase();
  const existing = await db.user.findUnique({ where: { email }, include: { memberships: { select: { organizationId: true } } } });
  if (existing?.memberships.some((membership) => membership.organizationId === input.organizationId)) throw memberConflict('already-member');
  if (existing?.memberships.length) throw memberConflict('other-organization');
  if (existing) {
    // A person removed from every organisation can reach nothing: adding them again is
    // like adding someone new (a new password, given to whoever adds them). The user row is
    // locked and the check repeated, so two organisations adding them at once cannot both win.
    return db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM users WHERE id = ${existing.id}::uuid FOR UPDATE`;
      const memberships = await tx.membership.findMany({ where: { userId: existing.id }, select: { organizationId: true } });
      if (memberships.some((membership) => membership.organizationId === input.organizationId)) throw memberConflict('already-member');
      if (memberships.length) throw memberConflict('other-organization');
      const membership = await tx.membership.create({ data: { organizationId: input.organizationId, userId: existing.id, role: input.role } });
      const user = await tx.user.update({ where: { id: existing.id }, data: { passwordHash: input.passwordHash } });
      // Sessions of theirs left from before (each ended with its organisation's membership) stay ended.
      await tx.session.deleteMany({ where: { userId: existing.id } });
      return { user, membership };
    });
  }
  try {
    const user = await db.user.create({
      data: { email, passwordHash: input.passwordHash, memberships: { create: { organizationId: input.organizationId, role: input.role } } },
      include: { memberships: true },
    });
    const { memberships, ...plain } = user;
    return { user: plain, membership: memberships[0]! };
  } catch (error) {
    // Two requests adding the same email at once: the unique index decides.
    if (isUniqueViolation(error)) throw memberConflict('already-member');
    throw error;
  }
}
