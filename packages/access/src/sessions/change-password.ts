import type { Database } from '@docgen/db';
import { hashPassword } from '@docgen/security';

/**
 * Sets a person's new password and ends their other sessions, in every organisation, in one
 * transaction; the session that asked stays. Checking the current password (and counting
 * wrong ones) is the caller's: it needs the sign-in limit.
 */
export async function changePassword(db: Database, input: { userId: string; keepSessionId: string; newPassword: string }): Promise<void> {
  const passwordHash = await hashPassword(input.newPassword);
  await db.$transaction([
    db.user.update({ where: { id: input.userId }, data: { passwordHash } }),
    db.session.deleteMany({ where: { userId: input.userId, id: { not: input.keepSessionId } } }),
  ]);
}
