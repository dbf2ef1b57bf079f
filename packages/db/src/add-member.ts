import type { Database } from './client';
import { isUniqueViolation } from './errors';
import type { Membership, User } from './generated/prisma/client';

export type Role = 'admin' | 'member';

/** Why a person could not be added; the gateway answers 409 and the CLI says so. */
export class MemberConflictError extends Error {
  constructor(readonly reason: 'already-member' | 'other-organization') {
    super(
      reason === 'already-member'
        ? 'This email is already a member of the organisation'
        : 'This email already has an account in another organisation; an operator can add it there',
    );
  }
}

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
  if (existing?.memberships.some((membership) => membership.organizationId === input.organizationId)) throw new MemberConflictError('already-member');
  if (existing?.memberships.length) throw new MemberConflictError('other-organization');
  if (existing) {
    // A person removed from every organisation can reach nothing: adding them again is
    // like adding someone new (a new password, given to whoever adds them).
    const membership = await db.membership.create({ data: { organizationId: input.organizationId, userId: existing.id, role: input.role } });
    const user = await db.user.update({ where: { id: existing.id }, data: { passwordHash: input.passwordHash } });
    return { user, membership };
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
    if (isUniqueViolation(error)) throw new MemberConflictError('already-member');
    throw error;
  }
}
