import type { RequestHandler } from 'express';
import type { Database } from '@docgen/db';
import { hashApiKey, looksLikeApiKey } from '@docgen/security';
import type { AuthFailureThrottle } from '../auth-failure-throttle';
import { HttpError, invalidApiKey } from '../errors';

export interface Caller {
  organization: { id: string; name: string; rateLimitPerMinute: number };
  apiKey: { id: string; name: string; prefix: string; expiresAt: Date | null };
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
 * Resolves X-API-Key to its organisation. The key is looked up on every request (one
 * indexed query by hash, joined to its organisation) rather than cached, so a revocation is seen by every replica
 * on the very next request.
 */
export function authenticate(db: Database, throttle: AuthFailureThrottle): RequestHandler {
  return async (req, _res, next) => {
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const retryAfter = throttle.retryAfterSeconds(address);
    if (retryAfter > 0) throw tooManyFailures(retryAfter);
    const presented = req.get('x-api-key');
    if (!presented || !looksLikeApiKey(presented)) throw invalidApiKey();

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

const tooManyFailures = (retryAfterSeconds: number) =>
  new HttpError(429, 'Too many failed API key attempts from this address. Please try again later.', {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

export function requireCaller(req: { caller?: Caller }): Caller {
  if (!req.caller) throw invalidApiKey();
  return req.caller;
}
