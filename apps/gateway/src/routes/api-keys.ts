import { presentApiKey, isUuid } from '@docgen/contracts';
import type { Database } from '@docgen/db';
import { generateApiKey } from '@docgen/security';
import { HttpError } from '../errors';
import { requireCaller } from '../middleware/authenticate';
import type { OperationHandler, OperationHandlers } from '../operations/operation-handler';

/** A date alone means midnight UTC at its start, as the CLI's --expires reads it. */
const parseExpiry = (value: string) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);

/** API keys managed from the web UI (admins with a session; the authorize middleware checks). */
export function apiKeyHandlers({ db }: { db: Database }): OperationHandlers<'listApiKeys' | 'createApiKey' | 'revokeApiKey'> {
  const listApiKeys: OperationHandler<'listApiKeys'> = async ({ req, reply }) => {
    const { organization } = requireCaller(req);
    const keys = await db.apiKey.findMany({ where: { organizationId: organization.id }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
    reply(200, { items: keys.map(presentApiKey) });
  };

  const createApiKey: OperationHandler<'createApiKey'> = async ({ req, body, reply }) => {
    const { organization, session } = requireCaller(req);
    const expiresAt = body.expires_at ? parseExpiry(body.expires_at) : null;
    if (expiresAt && expiresAt <= new Date()) {
      throw new HttpError(422, 'Invalid expires_at: must be in the future', { errors: [{ path: 'expires_at', message: 'must be in the future' }] });
    }
    const { key, hash, prefix } = generateApiKey();
    const created = await db.apiKey.create({ data: { organizationId: organization.id, name: body.name, keyHash: hash, prefix, expiresAt } });
    req.log.info({ apiKeyId: created.id, userId: session?.user.id }, 'API key created');
    reply(201, { ...presentApiKey(created), key });
  };

  const revokeApiKey: OperationHandler<'revokeApiKey'> = async ({ req, params, reply }) => {
    const { organization, session } = requireCaller(req);
    // Revoking twice is fine; the first revocation time is kept. Keys are looked up on
    // every request, so the next request with this key is 401 on every replica.
    const { count } = isUuid(params.id)
      ? await db.apiKey.updateMany({ where: { id: params.id, organizationId: organization.id, revokedAt: null }, data: { revokedAt: new Date() } })
      : { count: 0 };
    if (count === 0 && !(isUuid(params.id) && (await db.apiKey.count({ where: { id: params.id, organizationId: organization.id } })))) {
      throw new HttpError(404, 'API key not found');
    }
    req.log.info({ apiKeyId: params.id, userId: session?.user.id }, 'API key revoked');
    reply(204);
  };

  return { listApiKeys, createApiKey, revokeApiKey };
}
