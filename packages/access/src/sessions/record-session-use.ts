import type { Database } from '@docgen/db';

/** Moves a session's idle clock; the caller writes at most once a minute per session (LAST_SEEN_GRANULARITY_MS). */
export async function recordSessionUse(db: Database, sessionId: string, at: Date): Promise<void> {
  await db.session.updateMany({ where: { id: sessionId }, data: { lastSeenAt: at } });
}
