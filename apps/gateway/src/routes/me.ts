import { requireCaller } from '../middleware/authenticate';
import type { OperationHandlers } from '../operations/operation-handler';

export function meHandlers(): OperationHandlers<'getMe'> {
  return {
    getMe: ({ req, reply }) => {
      const { organization, apiKey, session } = requireCaller(req);
      reply(200, {
        organization: { id: organization.id, name: organization.name, rate_limit_per_minute: organization.rateLimitPerMinute },
        api_key: apiKey ? { id: apiKey.id, name: apiKey.name, prefix: apiKey.prefix, expires_at: apiKey.expiresAt?.toISOString() ?? null } : null,
        user: session?.user ?? null,
      });
    },
  };
}
