import type { RequestHandler } from 'express';
import type { Database } from '@docgen/db';
import { hashApiKey, looksLikeApiKey } from '@docgen/security';
import { invalidApiKey } from '../errors';

export interface Caller {
  organization: { id: string; name: string; rateLimitPerMinute: number };
  apiKey: { id: string; name: string; prefix: string; expiresAt: Date | null };
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      caller?: Caller;
    }
  }
}

const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Resolves X-API-Key to its organisation. The key is looked up on every request (one
 * indexed query by hash) rather than cached, so a revocation is seen by every replica
 * on the very next request.
 */
export function authenticate(db: Database): RequestHandler {
  return async (req, _res, next) => {
    const presented = req.get('x-api-key');
    if (!presented || !looksLikeApiKey(presented)) throw invalidApiKey();

    const key = await db.apiKey.findUnique({ where: { keyHash: hashApiKey(presented) }, include: { organization: true } });
    const now = new Date();
    if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= now)) throw invalidApiKey();

    req.caller = {
      organization: { id: key.organization.id, name: key.organization.name, rateLimitPerMinute: key.organization.rateLimitPerMinute },
      apiKey: { id: key.id, name: key.name, prefix: key.prefix, expiresAt: key.expiresAt },
    };
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_GRANULARITY_MS) {
      // Coarse bookkeeping off the request path: at most one write per key per minute.
      db.apiKey
        .update({ where: { id: key.id }, data: { lastUsedAt: now } })
        .catch((error: unknown) => req.log.warn({ err: error }, 'could not record API key use'));
    }
    next();
  };
}

export function requireCaller(req: { caller?: Caller }): Caller {
  if (!req.caller) throw invalidApiKey();
  return req.caller;
}
