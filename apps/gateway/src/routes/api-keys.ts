import * as access from '@docgen/access';
import { presentApiKey } from '@docgen/contracts';
import type { Database } from '@docgen/db';
import { HttpError } from '../errors';
import { requireCaller } from '../middleware/authenticate';
import type { OperationHandler, OperationHandlers } from '../operations/operation-handler';

interface ApiKeyDeps {
  db: Database;
  /** Moved by a revoke, so every replica's cached lookup of the key is dropped. */
  epochs: access.KeyLookupEpochs;
}

/** API keys managed from the web UI (admins with a session; the authorize middleware checks). */
export function apiKeyHandlers({ db, epochs }: ApiKeyDeps): OperationHandlers<'listApiKeys' | 'createApiKey' | 'revokeApiKey'> {
  const listApiKeys: OperationHandler<'listApiKeys'> = async ({ req, reply }) => {
    const { organization } = requireCaller(req);
    reply(200, { items: (await access.listApiKeys(db, organization.id)).map(presentApiKey) });
  };

  const createApiKey: OperationHandler<'createApiKey'> = async ({ req, body, reply }) => {
    const { organization, session } = requireCaller(req);
    // The body's schema already holds it to a date or a date-time with offset.
    const expiresAt = body.expires_at ? (access.parseExpiry(body.expires_at) ?? new Date(body.expires_at)) : null;
    if (expiresAt && expiresAt <= new Date()) {
      throw new HttpError('validation_failed', 'Invalid expires_at: must be in the future', {
        errors: [{ path: 'expires_at', message: 'must be in the future' }],
      });
    }
    const { apiKey, key } = await access.createApiKey(db, { organizationId: organization.id, name: body.name, expiresAt });
    req.log.info({ apiKeyId: apiKey.id, userId: session?.user.id }, 'API key created');
    reply(201, { ...presentApiKey(apiKey), key });
  };

  const revokeApiKey: OperationHandler<'revokeApiKey'> = async ({ req, params, reply }) => {
    const { organization, session } = requireCaller(req);
    // Answered once every replica will refuse the key (its lookup epoch moved).
    await access.revokeApiKey(db, epochs, { id: params.id, organizationId: organization.id });
    req.log.info({ apiKeyId: params.id, userId: session?.user.id }, 'API key revoked');
    reply(204);
  };

  return { listApiKeys, createApiKey, revokeApiKey };
}
