import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { matchOperation } from '@docgen/contracts';
import { HttpError, RATE_LIMITED_DETAIL, limiterDown } from '../errors';
import type { SlidingWindowRateLimiter } from '../rate-limiter';
import { requireCaller } from './authenticate';

/**
 * Counts every authenticated request: an API key's against its organisation's window (already
 * counted by `authenticate`, in the round trip that checked the key's lookup epoch), a
 * session's against its person's own window (`sessionLimit` per window), so people using the
 * web UI and programs using keys never starve each other. Signing out is not limited.
 */
export function rateLimit(limiter: SlidingWindowRateLimiter, countRateLimited: (organizationId: string) => void, sessionLimit: number): RequestHandler {
  return async (req, res, next) => {
    const { organization, session } = requireCaller(req);
    // Signing out only ends a session: refused at the limit, or failed with Redis down, it
    // would leave the session alive (on a shared computer, for the next person).
    if (session && req.method === 'DELETE' && matchOperation('DELETE', req.baseUrl + req.path)?.operationId === 'signOut') return next();
    const [subject, limit] = session ? [`user:${session.user.id}`, sessionLimit] : [organization.id, organization.rateLimitPerMinute];
    // Each request is its own entry in the window; the caller's X-Request-Id is not
    // unique (a client may repeat it, a proxy's retry does), so it cannot be the member.
    const decision =
      req.rateLimitDecision ??
      (await limiter.consume(subject, limit, randomUUID()).catch((error: unknown) => {
        throw limiterDown(req, error);
      }));
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.admitted) {
      countRateLimited(organization.id);
      throw new HttpError('rate_limited', RATE_LIMITED_DETAIL, { headers: { 'Retry-After': String(decision.resetSeconds) } });
    }
    next();
  };
}
