import { Router } from 'express';
import { MeResponse } from '@docgen/contracts';
import { requireCaller } from '../middleware/authenticate';

export function meRoutes(): Router {
  const router = Router();
  router.get('/me', (req, res) => {
    const { organization, apiKey, session } = requireCaller(req);
    res.json(
      MeResponse.parse({
        organization: { id: organization.id, name: organization.name, rate_limit_per_minute: organization.rateLimitPerMinute },
        api_key: apiKey ? { id: apiKey.id, name: apiKey.name, prefix: apiKey.prefix, expires_at: apiKey.expiresAt?.toISOString() ?? null } : null,
        user: session?.user ?? null,
      }),
    );
  });
  return router;
}
