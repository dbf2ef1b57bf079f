import { randomUUID } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import * as access from '@docgen/access';
import type { Database } from '@docgen/db';
import { hashPassword, verifyPassword } from '@docgen/security';
import { HttpError } from '../errors';
import type { AuthFailureThrottle } from '../auth-failure-throttle';
import { clientAddress, requireCaller, tooManyFailures } from '../middleware/authenticate';
import type { OperationHandler, OperationHandlers } from '../operations/operation-handler';
import { limitFailures } from '../people/failed-sign-ins';
import { presentSession } from '../people/present-session';
import { cameOverHttps, clearSessionCookie, setSessionCookie } from '../people/session-cookie';
import type { SlidingWindowRateLimiter } from '../rate-limiter';

export interface SessionRouteDeps {
  db: Database;
  failures: SlidingWindowRateLimiter;
  /** Failed sign-ins per address too: one address trying many emails spends a password hash on each. */
  addressFailures: AuthFailureThrottle;
  maxJsonBytes: number;
  publicUrl: string | undefined;
}

/** POST /session: open (it is how a person gets a session). */
export function signInHandlers({ db, failures, addressFailures, maxJsonBytes, publicUrl }: SessionRouteDeps): OperationHandlers<'signIn'> {
  // A hash of a password nobody knows: an unknown email is checked against it, so it costs
  // the same time as a known one with a wrong password.
  const dummyHash = hashPassword(randomUUID());
  // Before the body is validated: a throttled address gets its 429 whatever it sends.
  const refuseThrottledAddress: RequestHandler = (req, _res, next) => {
    const wait = addressFailures.retryAfterSeconds('sign-in', clientAddress(req));
    if (wait > 0) throw tooManyFailures(wait, 'sign-ins');
    next();
  };
  const signIn: OperationHandler<'signIn'> = async ({ req, res, body, reply }) => {
    const address = clientAddress(req);
    const email = body.email.trim().toLowerCase();
    const found = await limitFailures(failures, email, address, async () => {
      const row = await access.findSignIn(db, email);
      const matches = await verifyPassword(row?.password_hash ?? (await dummyHash), body.password);
      return matches && row?.organization_id ? row : undefined;
    });
    if (!found) {
      await addressFailures.recordFailure('sign-in', address).catch((error: unknown) => req.log.warn({ err: error }, 'could not count a failed sign-in'));
      throw new HttpError('invalid_credentials');
    }

    const started = await access.startSession(db, { userId: found.user_id, organizationId: found.organization_id!, passwordHash: found.password_hash });
    // The password changed, or the person was removed, while their password was being checked.
    if (!started) throw new HttpError('invalid_credentials');
    const { session, token, endsAt, housekeeping } = started;
    setSessionCookie(res, token, cameOverHttps(req, publicUrl), access.SESSION_ABSOLUTE_MS);
    // Housekeeping off the request path: this person's ended sessions go when they sign in again.
    housekeeping.catch((error: unknown) => req.log.warn({ err: error }, 'could not delete ended sessions'));
    req.log.info({ userId: found.user_id, organizationId: found.organization_id }, 'signed in');
    reply(
      200,
      presentSession(
        { id: found.organization_id!, name: found.organization_name!, rateLimitPerMinute: found.rate_limit_per_minute! },
        { id: session.id, token, user: { id: found.user_id, email: found.email, role: found.role! }, endsAt },
      ),
    );
  };
  return { signIn: { before: [express.json({ limit: maxJsonBytes }), refuseThrottledAddress], handle: signIn } };
}

/** GET/DELETE /session and POST /session/password: behind authentication, session only. */
export function sessionHandlers({ db, failures, publicUrl }: SessionRouteDeps): OperationHandlers<'getSession' | 'signOut' | 'changePassword'> {
  const getSession: OperationHandler<'getSession'> = ({ req, reply }) => {
    const { organization, session } = requireCaller(req);
    reply(200, presentSession(organization, session!));
  };

  const signOut: OperationHandler<'signOut'> = async ({ req, res, reply }) => {
    const { session } = requireCaller(req);
    await access.endSession(db, session!.id);
    clearSessionCookie(res, cameOverHttps(req, publicUrl));
    reply(204);
  };

  const changePassword: OperationHandler<'changePassword'> = async ({ req, body, reply }) => {
    const session = requireCaller(req).session!;
    const user = await db.user.findUniqueOrThrow({ where: { id: session.user.id } });
    // A stolen session guessing the current password meets the same limit as sign-in.
    const matches = await limitFailures(failures, user.email, clientAddress(req), async () =>
      (await verifyPassword(user.passwordHash, body.current_password)) ? true : undefined,
    );
    if (!matches) {
      throw new HttpError('wrong_password', 'Invalid current_password: is not your current password', {
        errors: [{ path: 'current_password', message: 'is not your current password' }],
      });
    }
    await access.changePassword(db, { userId: user.id, keepSessionId: session.id, newPassword: body.new_password });
    req.log.info({ userId: user.id }, 'password changed; other sessions ended');
    reply(204);
  };

  return { getSession, signOut, changePassword };
}
