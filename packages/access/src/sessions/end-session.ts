import type { Database } from '@docgen/db';

/** Signs a session out: the next request with its cookie is 401 on every replica. */
export async function endSession(db: Database, sessionId: string): Promise<void> {
  await db.session.deleteMany({ where: { id: sessionId } });
}
