import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface NewSessionToken {
  /** Goes into the cookie only; never stored. */
  token: string;
  /** SHA-256 hex of the token: what the database keeps. */
  hash: string;
}

export const hashSessionToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export function generateSessionToken(): NewSessionToken {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashSessionToken(token) };
}

/** 43 base64url characters: checked before any database work. */
export const looksLikeSessionToken = (value: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(value);

/**
 * The CSRF token is derived from the session token, so it is bound to the session without
 * being stored: only someone who holds the cookie (the server, the browser) can compute it,
 * and a page on another site can read neither.
 */
export const csrfTokenFor = (sessionToken: string): string => createHmac('sha256', sessionToken).update('docgen csrf').digest('base64url');

export function csrfTokenMatches(sessionToken: string, presented: string | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const actual = Buffer.from(presented);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
