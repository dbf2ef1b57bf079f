import type { RequestHandler } from 'express';
import { matchOperation } from '@docgen/contracts';
import { ERROR_TABLE } from '../error-table';
import { HttpError } from '../errors';
import { requireCaller } from './authenticate';

export const NEEDS_ADMIN = ERROR_TABLE.admin_required.detail;
export const NEEDS_SESSION_FOR_PEOPLE = 'Sign in to the web UI to manage API keys and members';
export const NEEDS_SESSION_FOR_CERTIFICATES = 'Sign in to the web UI as an admin to manage signing certificates';
export const NEEDS_SESSION = 'Sign in to the web UI to use a session; API keys have none';

/**
 * Enforces each operation's `access` from the contract's operations table, so the rule and
 * the OpenAPI document cannot disagree. The path is the one Express routes on (baseUrl + path),
 * never the raw request target: `/api/v1/members#` or an absolute-form target must meet the
 * same rule as the handler they reach. A request that matches no operation is a 404 here, so
 * a handler without an operation can never be reached unguarded.
 */
export const authorize: RequestHandler = (req, _res, next) => {
  const operation = matchOperation(req.method === 'HEAD' ? 'GET' : req.method, req.baseUrl + req.path);
  if (!operation) throw new HttpError('not_found');
  const access = operation.access ?? 'anyone';
  const { session } = requireCaller(req);
  if (access === 'anyone') return next();
  if (!session) {
    if (access === 'admin-session') {
      throw new HttpError('session_required', operation.tag === 'Signing certificates' ? NEEDS_SESSION_FOR_CERTIFICATES : NEEDS_SESSION_FOR_PEOPLE);
    }
    if (access === 'session') throw new HttpError('session_required', NEEDS_SESSION);
    return next(); // 'admin': API keys keep managing webhooks
  }
  if (access !== 'session' && session.user.role !== 'admin') throw new HttpError('admin_required');
  next();
};
