import type { Database, Session } from '@docgen/db';
import { generateSessionToken } from '@docgen/security';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, sessionEndsAt } from './session-lifetime';

/**
 * A new session for a person in an organisation, if they still are what sign-in checked: the
 * password hash it verified, and a member. Their rows are locked while the session is inserted,
 * so a password change or a removal that commits meanwhile either waits and ends this session
 * too, or is seen here and refuses it (`undefined`): none can miss a session being opened.
 * The token goes to the cookie, only its hash is stored. The person's ended sessions are
 * deleted off the caller's path (`housekeeping` resolves when that is done; a failure there
 * loses nothing).
 */
export async function startSession(
  db: Database,
  input: { userId: string; organizationId: string; passwordHash: string },
): Promise<{ session: Session; token: string; endsAt: Date; housekeeping: Promise<unknown> } | undefined> {
  const { userId, organizationId, passwordHash } = input;
  const { token, hash } = generateSessionToken();
  const now = new Date();
  const absoluteEnd = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
  const session = await db.$transaction(async (tx) => {
    // The organisation first, as a removal locks it: the same order both ways, no deadlock.
    await tx.$queryRaw`SELECT 1 FROM organizations WHERE id = ${organizationId}::uuid FOR KEY SHARE`;
    const still = await tx.$queryRaw<unknown[]>`
      SELECT 1 FROM users u JOIN memberships m ON m.user_id = u.id AND m.organization_id = ${organizationId}::uuid
      WHERE u.id = ${userId}::uuid AND u.password_hash = ${passwordHash}
      FOR SHARE OF u, m`;
    if (still.length === 0) return undefined;
    return tx.session.create({ data: { tokenHash: hash, userId, organizationId, createdAt: now, lastSeenAt: now, expiresAt: absoluteEnd } });
  });
  if (!session) return undefined;
  const housekeeping = db.session.deleteMany({
    where: { userId, OR: [{ expiresAt: { lte: now } }, { lastSeenAt: { lte: new Date(now.getTime() - SESSION_IDLE_MS) } }] },
  });
  return { session, token, endsAt: sessionEndsAt(now, absoluteEnd), housekeeping };
}
