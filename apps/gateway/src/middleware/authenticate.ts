import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { LAST_SEEN_GRANULARITY_MS, findSession, recordApiKeyUse, recordSessionUse, sessionEndsAt, type Caller } from '@docgen/access';
import type { Database } from '@docgen/db';
import { hashApiKey, hashSessionToken, looksLikeApiKey, looksLikeSessionToken } from '@docgen/security';
import type { ApiKeyLookups } from '../api-key-lookups';
import type { AuthFailureThrottle } from '../auth-failure-throttle';
import { HttpError, invalidApiKey, limiterDown } from '../errors';
import { cameOverHttps, clearSessionCookie, readSessionCookie } from '../people/session-cookie';
import { RateLimiterUnavailable, type RateLimitDecision } from '../rate-limiter';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      caller?: Caller;
      /** An API key's request is counted while it is authenticated (the same script checks the key's lookup epoch). */
      rateLimitDecision?: RateLimitDecision;
    }
  }
}

const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * A session cookie that is dead (unknown, idle 12 h, past 7 days, member removed) is
 * cleared, so the browser stops sending it; the answer is the contract's 401.
 */
async function authenticateSession(db: Database, req: Request, res: Response, publicUrl: string | undefined): Promise<Caller> {
  const token = readSessionCookie(req);
  const dead = () => {
    // Not when the cookies were two ('' from readSessionCookie): clearing ours would leave the planted one alone.
    if (token) clearSessionCookie(res, cameOverHttps(req, publicUrl));
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
    recordSessionUse(db, row.id, now).catch((error: unknown) => req.log.warn({ err: error }, 'could not record session use'));
  }
  return {
    organization: { id: row.organization_id, name: row.organization_name, rateLimitPerMinute: row.rate_limit_per_minute },
    session: { id: row.id, token, user: { id: row.user_id, email: row.email, role: row.role }, endsAt: sessionEndsAt(now, row.expires_at) },
  };
}

/** The address failures are counted against (the client's, through a trusted proxy). */
export const clientAddress = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/**
 * Resolves X-API-Key, or else the docgen_session cookie, to its organisation. Sessions are
 * looked up on every request (one indexed query by hash, joined to the organisation), so a
 * sign-out or a removed member is seen by every replica on the very next request. Keys come
 * from the replica's cache of lookups (ApiKeyLookups), whose every use is checked against the
 * organisation's key lookup epoch in the rate-limit script's round trip, so a revocation is
 * seen by every replica on the very next request too. A request that sends X-API-Key is
 * judged by the key alone.
 */
export function authenticate(db: Database, keys: ApiKeyLookups, throttle: AuthFailureThrottle, publicUrl?: string): RequestHandler {
  return async (req, res, next) => {
    const address = clientAddress(req);
    const presented = req.get('x-api-key');
    if (presented === undefined) {
      req.caller = await authenticateSession(db, req, res, publicUrl);
      next();
      return;
    }
    // An address with too many failed API keys is refused for every key that is not valid, and
    // its malformed ones before any query; a valid key (one indexed lookup) still gets through,
    // so one misbehaving client behind a NAT address never locks out that address's programs.
    // Its failed sign-ins are counted apart and do not count here.
    const retryAfter = throttle.retryAfterSeconds('api-key', address);
    if (!looksLikeApiKey(presented)) throw retryAfter > 0 ? tooManyFailures(retryAfter) : invalidApiKey();

    const now = new Date();
    // Each request is its own entry in the rate-limit window (see rateLimit).
    const admitted = await keys.admit(hashApiKey(presented), now, randomUUID()).catch((error: unknown) => {
      throw error instanceof RateLimiterUnavailable ? limiterDown(req, error.cause) : error;
    });
    if (!admitted) {
      if (retryAfter > 0) throw tooManyFailures(retryAfter);
      await throttle.recordFailure('api-key', address).catch((error: unknown) => req.log.warn({ err: error }, 'could not count a failed authentication'));
      throw invalidApiKey();
    }

    const { key, decision } = admitted;
    req.caller = {
      organization: { id: key.organization_id, name: key.organization_name, rateLimitPerMinute: key.rate_limit_per_minute },
      apiKey: { id: key.id, name: key.name, prefix: key.prefix, expiresAt: key.expires_at },
    };
    req.rateLimitDecision = decision;
    if (!key.last_used_at || now.getTime() - key.last_used_at.getTime() > LAST_USED_GRANULARITY_MS) {
      // Coarse bookkeeping off the request path: at most one write per key per minute (per
      // replica: the cached row remembers it too).
      key.last_used_at = now;
      recordApiKeyUse(db, key.id, now).catch((error: unknown) => req.log.warn({ err: error }, 'could not record API key use'));
    }
    next();
  };
}

export const tooManyFailures = (retryAfterSeconds: number, what = 'API key attempts') =>
  new HttpError('rate_limited', `Too many failed ${what} from this address. Please try again later.`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });

export function requireCaller(req: { caller?: Caller }): Caller {
  if (!req.caller) throw invalidApiKey();
  return req.caller;
}
