import type { Role } from './roles';

export interface CallerSession {
  id: string;
  /** The cookie's token: the CSRF token is derived from it. */
  token: string;
  user: { id: string; email: string; role: Role };
  endsAt: Date;
}

/** Who a request authenticates as: an organisation, by exactly one of an API key or a session. */
export interface Caller {
  organization: { id: string; name: string; rateLimitPerMinute: number };
  apiKey?: { id: string; name: string; prefix: string; expiresAt: Date | null };
  session?: CallerSession;
}
