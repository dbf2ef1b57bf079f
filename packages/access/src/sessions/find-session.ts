import type { Database } from '@docgen/db';
import type { Role } from '../roles';

export interface SessionRow {
  id: string;
  user_id: string;
  email: string;
  role: Role;
  last_seen_at: Date;
  expires_at: Date;
  organization_id: string;
  organization_name: string;
  rate_limit_per_minute: number;
}

/**
 * The session, its person, their membership and organisation in one indexed round trip.
 * Joining the membership means a removed member's session is dead even before its row goes,
 * and a role is read fresh on every request.
 */
const FIND_SESSION = {
  name: 'find-session',
  text: `SELECT s.id, s.user_id, u.email, m.role, s.last_seen_at, s.expires_at,
                o.id AS organization_id, o.name AS organization_name, o.rate_limit_per_minute
         FROM sessions s
         JOIN users u ON u.id = s.user_id
         JOIN memberships m ON m.user_id = s.user_id AND m.organization_id = s.organization_id
         JOIN organizations o ON o.id = s.organization_id
         WHERE s.token_hash = $1`,
};

export const findSession = async (db: Database, tokenHash: string): Promise<SessionRow | undefined> =>
  (await db.sql.query<SessionRow>(FIND_SESSION, [tokenHash]))[0];
