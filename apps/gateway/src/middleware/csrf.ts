import type { RequestHandler } from 'express';
import { csrfTokenMatches } from '@docgen/security';
import { HttpError } from '../errors';
import { requireCaller } from './authenticate';

/**
 * A request authenticated by the session cookie and not GET/HEAD must carry the session's
 * X-CSRF-Token. A page on another site can make the browser send the cookie, but cannot
 * read the token (it is in a JSON response, same-origin) nor set the header without CORS.
 */
export const checkCsrf: RequestHandler = (req, _res, next) => {
  const { session } = requireCaller(req);
  if (session && req.method !== 'GET' && req.method !== 'HEAD' && !csrfTokenMatches(session.token, req.get('x-csrf-token'))) {
    throw new HttpError('csrf_failed', 'Missing or invalid CSRF token');
  }
  next();
};
