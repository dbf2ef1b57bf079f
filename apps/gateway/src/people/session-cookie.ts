import type { Request, Response } from 'express';
import { SESSION_COOKIE } from '@docgen/contracts';

/**
 * The docgen_session value from the Cookie header, without a cookie-parsing dependency. Two
 * different values are none (''): a cookie planted from a sibling domain with a longer path
 * is sent first, and taking it would sign the person into someone else's organisation.
 */
export function readSessionCookie(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  let value: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const found = part.slice(eq + 1).trim();
    if (value !== undefined && value !== found) return '';
    value = found;
  }
  return value;
}

/**
 * HTTPS as the browser saw it: `req.secure` follows X-Forwarded-Proto only when TRUST_PROXY
 * trusts the proxy that sent it; a PUBLIC_URL of https:// says so for every request.
 */
export const cameOverHttps = (req: Request, publicUrl: string | undefined): boolean => req.secure || (publicUrl?.startsWith('https:') ?? false);

const options = (secure: boolean) => ({ httpOnly: true, sameSite: 'lax' as const, path: '/', secure });

export function setSessionCookie(res: Response, token: string, secure: boolean, maxAgeMs: number): void {
  res.cookie(SESSION_COOKIE, token, { ...options(secure), maxAge: maxAgeMs });
}

export function clearSessionCookie(res: Response, secure: boolean): void {
  res.clearCookie(SESSION_COOKIE, options(secure));
}
