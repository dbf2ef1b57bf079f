import { createHash, randomUUID } from 'node:crypto';
import { HttpError, dependencyDown } from '../errors';
import type { SlidingWindowRateLimiter } from '../rate-limiter';

export const MAX_FAILED_SIGN_INS = 10;

/**
 * Password checks one replica runs at once, and for one client address. Each holds one of
 * libuv's four threads for tens of milliseconds, and that pool also reads files and resolves
 * names: a burst of sign-ins (from many addresses, or with many emails before any has
 * failed) would queue everything else behind it, and one address could take every check.
 * Past either, a sign-in is answered 429 at once, before any hash.
 */
export const MAX_PASSWORD_CHECKS_IN_FLIGHT = 16;
export const MAX_PASSWORD_CHECKS_IN_FLIGHT_PER_ADDRESS = 4;
let checksInFlight = 0;
const checksInFlightByAddress = new Map<string, number>();

/**
 * More than 10 failed password checks for one email within the window (15 min) answer 429
 * until enough of them age out, on every replica (the window lives in Redis). Each attempt
 * takes a slot *before* the password is checked, atomically, so parallel guesses cannot
 * slip past the limit and a locked email is refused even with the right password; a
 * successful check gives its slot back. Unknown emails count the same as known ones, so
 * the 429 reveals nothing about which emails exist. At most MAX_PASSWORD_CHECKS_IN_FLIGHT
 * run at once on a replica, MAX_PASSWORD_CHECKS_IN_FLIGHT_PER_ADDRESS of them for `address`.
 */
export async function limitFailures<T>(
  failures: SlidingWindowRateLimiter,
  email: string,
  address: string,
  check: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const fromAddress = checksInFlightByAddress.get(address) ?? 0;
  if (checksInFlight >= MAX_PASSWORD_CHECKS_IN_FLIGHT || fromAddress >= MAX_PASSWORD_CHECKS_IN_FLIGHT_PER_ADDRESS) {
    throw new HttpError('rate_limited', 'Too many sign-ins at once. Please try again in a moment.', { headers: { 'Retry-After': '1' } });
  }
  checksInFlight += 1;
  checksInFlightByAddress.set(address, fromAddress + 1);
  try {
    return await limitFailuresOf(failures, email, check);
  } finally {
    checksInFlight -= 1;
    const left = (checksInFlightByAddress.get(address) ?? 1) - 1;
    if (left > 0) checksInFlightByAddress.set(address, left);
    else checksInFlightByAddress.delete(address);
  }
}

async function limitFailuresOf<T>(failures: SlidingWindowRateLimiter, email: string, check: () => Promise<T | undefined>): Promise<T | undefined> {
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
