import type { Database } from '@docgen/db';
import type { Role } from '../roles';

export interface SignInRow {
  user_id: string;
  email: string;
  password_hash: string;
  role: Role | null;
  organization_id: string | null;
  organization_name: string | null;
  rate_limit_per_minute: number | null;
}

/**
 * The person and their first membership in one round trip, whether or not the email
 * exists: a known and an unknown email cost the same query, so only the (equally slow)
 * password check follows either way.
 */
const FIND_SIGN_IN = {
  name: 'find-sign-in',
  text: `SELECT u.id AS user_id, u.email, u.password_hash, m.role, o.id AS organization_id, o.name AS organization_name, o.rate_limit_per_minute
         FROM users u
         LEFT JOIN LATERAL (SELECT role, organization_id FROM memberships WHERE user_id = u.id ORDER BY created_at, organization_id LIMIT 1) m ON true
         LEFT JOIN organizations o ON o.id = m.organization_id
         WHERE u.email = $1`,
};

export const findSignIn = async (db: Database, email: string): Promise<SignInRow | undefined> => (await db.sql.query<SignInRow>(FIND_SIGN_IN, [email]))[0];
