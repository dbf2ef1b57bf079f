import type { RequestHandler } from 'express';
import { matchOperation } from '@docgen/contracts';
import { HttpError } from '../errors';
import { requireCaller } from './authenticate';

export const NEEDS_ADMIN = 'This needs the admin role';
export const NEEDS_SESSION_FOR_PEOPLE = 'Sign in to the web UI to manage API keys and members';
export const NEEDS_SESSION = 'Sign in to the web UI to use a session; API keys have none';

/**
 * Enforces each operation's `access` from the contract's operations table, so the rule and
 * the OpenAPI document cannot disagree. Paths that match no operation fall through to 404.
 */
export const authorize: RequestHandler = (req, _res, next) => {
  const access = matchOperation(req.method === 'HEAD' ? 'GET' : req.method, req.originalUrl.split('?')[0] ?? '')?.access ?? 'anyone';
  const { session } = requireCaller(req);
  if (access === 'anyone') return next();
  if (!session) {
    if (access === 'admin-session') throw new HttpError(403, NEEDS_SESSION_FOR_PEOPLE);
    if (access === 'session') throw new HttpError(403, NEEDS_SESSION);
    return next(); // 'admin': API keys keep managing webhooks
  }
  if (access !== 'session' && session.user.role !== 'admin') throw new HttpError(403, NEEDS_ADMIN);
  next();
};
