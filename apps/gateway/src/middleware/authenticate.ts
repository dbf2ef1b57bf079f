import type { Request, RequestHandler, Response } from 'express';
import type { Database } from '@docgen/db';
import { hashApiKey, hashSessionToken, looksLikeApiKey, looksLikeSessionToken } from '@docgen/security';
import type { AuthFailureThrottle } from '../auth-failure-throttle';
import { HttpError, invalidApiKey } from '../errors';
import { findSession } from '../people/find-session';
import { cameOverHttps, clearSessionCookie, readSessionCookie } from '../people/session-cookie';
import { LAST_SEEN_GRANULARITY_MS, sessionEndsAt } from '../people/session-lifetime';

export interface CallerSession {
  id: string;
  /** The cookie's token: the CSRF token is derived from it. */
  token: string;
  user: { id: string; email: string; role: 'admin' | 'member' };
  endsAt: Date;
}

/** Who a request authenticates as: an organisation, by exactly one of an API key or a session. */
export interface Caller {
  organization: { id: string; name: string; rateLimitPerMinute: number };
  apiKey?: { id: string; name: string; prefix: string; expiresAt: Date | null };
  session?: CallerSession;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      caller?: Caller;
    }
  }
}

const LAST_USED_GRANULARITY_MS = 60_000;

interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  organization_id: string;
  organization_name: string;
  rate_limit_per_minute: number;
}

const FIND_KEY = {
  name: 'find-api-key',
  text: `SELECT k.id, k.name, k.prefix, k.expires_at, k.revoked_at, k.last_used_at,
                o.id AS organization_id, o.name AS organization_name, o.rate_limit_per_minute
         FROM api_keys k JOIN organizations o ON o.id = k.organization_id
         WHERE k.key_hash = $1`,
};

/** The key and its organisation in one round trip (an ORM include would take two; bench/). */
const findKey = async (db: Database, keyHash: string): Promise<KeyRow | undefined> => (await db.sql.query<KeyRow>(FIND_KEY, [keyHash]))[0];

/**
 * A session cookie that is dead (unknown, idle 12 h, past 7 days, member removed) is
 * cleared, so the browser stops sending it; the answer is the contract's 401.
 */
async function authenticateSession(db: Database, req: Request, res: Response, publicUrl: string | undefined): Promise<Caller> {
  const token = readSessionCookie(req);
  const dead = () => {
    if (token !== undefined) clearSessionCookie(res, cameOverHttps(req, publicUrl));
    return invalidApiKey();
  };
  if (!token || !looksLikeSessionToken(token)) throw dead();
  const row = await findSession(db, hashSessionToken(token));
  const now = new Date();
  if (!row) throw dead();
  const endsAt = sessionEndsAt(row.last_seen_at, row.expires_at);
  if (endsAt <= now) throw dead();
  if (now.getTime() - row.last_seen_at.getTime() > LAST_SEEN_GRANULARITY_MS) {
    // At most one write per session per minute, off the request path: idle expiry is
    // accurate to a minute, and a busy page costs one indexed read per request.
    db.session
      .updateMany({ where: { id: row.id }, data: { lastSeenAt: now } })
      .catch((error: unknown) => req.log.warn({ err: error }, 'could not record session use'));
  }
  return {
    organization: { id: row.organization_id, name: row.organization_name, rateLimitPerMinute: row.rate_limit_per_minute },
    session: { id: row.id, token, user: { id: row.user_id, email: row.email, role: row.role }, endsAt: sessionEndsAt(now, row.expires_at) },
  };
}

/**
 * Resolves X-API-Key, or else the docgen_session cookie, to its organisation. Keys and
 * sessions are looked up on every request (one indexed query by hash, joined to the
 * organisation) rather than cached, so a revocation, a sign-out or a removed member is seen
 * by every replica on the very next request. A request that sends X-API-Key is judged by
 * the key alone.
 */
/** The address failures are counted against (the client's, through a trusted proxy). */
export const clientAddress = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

export function authenticate(db: Database, throttle: AuthFailureThrottle, publicUrl?: string): RequestHandler {
  return async (req, res, next) => {
    // An address with too many failed API-key authentications waits, before any query.
    const address = clientAddress(req);
    const retryAfter = throttle.retryAfterSeconds(address);
    if (retryAfter > 0) throw tooManyFailures(retryAfter);
    const presented = req.get('x-api-key');
    if (presented === undefined) {
      req.caller = await authenticateSession(db, req, res, publicUrl);
      next();
      return;
    }
    if (!looksLikeApiKey(presented)) throw invalidApiKey();

    const key = await findKey(db, hashApiKey(presented));
    const now = new Date();
    if (!key || key.revoked_at || (key.expires_at && key.expires_at <= now)) {
      await throttle.recordFailure(address).catch((error: unknown) => req.log.warn({ err: error }, 'could not count a failed authentication'));
      throw invalidApiKey();
    }

    req.caller = {
      organization: { id: key.organization_id, name: key.organization_name, rateLimitPerMinute: key.rate_limit_per_minute },
      apiKey: { id: key.id, name: key.name, prefix: key.prefix, expiresAt: key.expires_at },
    };
    if (!key.last_used_at || now.getTime() - key.last_used_at.getTime() > LAST_USED_GRANULARITY_MS) {
      // Coarse bookkeeping off the request path: at most one write per key per minute.
      db.apiKey
        .update({ where: { id: key.id }, data: { lastUsedAt: now } })
        .catch((error: unknown) => req.log.warn({ err: error }, 'could not record API key use'));
    }
    next();
  };
}

export const tooManyFailures = (retryAfterSeconds: number, what = 'API key attempts') =>
  new HttpError(429, `Too many failed ${what} from this address. Please try again later.`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

export function requireCaller(req: { caller?: Caller }): Caller {
  if (!req.caller) throw invalidApiKey();
  return req.caller;
}
