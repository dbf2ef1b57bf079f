import type { Database, Session } from '@docgen/db';
import { generateSessionToken } from '@docgen/security';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, sessionEndsAt } from './session-lifetime';

/**
 * A new session for a person in an organisation: the token goes to the cookie, only its hash
 * is stored. The person's ended sessions are deleted off the caller's path (`housekeeping`
 * resolves when that is done; a failure there loses nothing).
 */
export async function startSession(
  db: Database,
  input: { userId: string; organizationId: string },
): Promise<{ session: Session; token: string; endsAt: Date; housekeeping: Promise<unknown> }> {
  const { token, hash } = generateSessionToken();
  const now = new Date();
  const absoluteEnd = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
  const session = await db.session.create({
    data: { tokenHash: hash, userId: input.userId, organizationId: input.organizationId, createdAt: now, lastSeenAt: now, expiresAt: absoluteEnd },
  });
  const housekeeping = db.session.deleteMany({
    where: { userId: input.userId, OR: [{ expiresAt: { lte: now } }, { lastSeenAt: { lte: new Date(now.getTime() - SESSION_IDLE_MS) } }] },
  });
  return { session, token, endsAt: sessionEndsAt(now, absoluteEnd), housekeeping };
}
