export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
/** last_seen_at is written at most this often per session, off the request path. */
export const LAST_SEEN_GRANULARITY_MS = 60_000;

/** When a session ends unless it is used again: 12 h idle, never past its absolute end. */
export const sessionEndsAt = (lastSeenAt: Date, absoluteEnd: Date): Date => new Date(Math.min(lastSeenAt.getTime() + SESSION_IDLE_MS, absoluteEnd.getTime()));
