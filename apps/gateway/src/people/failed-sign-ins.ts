import { createHash, randomUUID } from 'node:crypto';
import { HttpError, dependencyDown } from '../errors';
import type { SlidingWindowRateLimiter } from '../rate-limiter';

export const MAX_FAILED_SIGN_INS = 10;

/**
 * More than 10 failed password checks for one email within the window (15 min) answer 429
 * until enough of them age out, on every replica (the window lives in Redis). Each attempt
 * takes a slot *before* the password is checked, atomically, so parallel guesses cannot
 * slip past the limit and a locked email is refused even with the right password; a
 * successful check gives its slot back. Unknown emails count the same as known ones, so
 * the 429 reveals nothing about which emails exist.
 */
export async function limitFailures<T>(failures: SlidingWindowRateLimiter, email: string, check: () => Promise<T | undefined>): Promise<T | undefined> {
  const subject = `signin:${createHash('sha256').update(email).digest('hex')}`;
  const entry = randomUUID();
  let decision;
  try {
    decision = await failures.consume(subject, MAX_FAILED_SIGN_INS, entry);
  } catch {
    throw dependencyDown('redis');
  }
  if (!decision.admitted) {
    throw new HttpError('rate_limited', 'Too many failed sign-ins for this email. Please try again later.', {
      headers: { 'Retry-After': String(decision.resetSeconds) },
    });
  }
  const result = await check();
  if (result !== undefined) await failures.release(subject, entry).catch(() => undefined);
  return result;
}
