import { Router } from 'express';
import { checkReadiness, type ReadinessCheck, type Registry } from '@docgen/observability';

export function healthRoutes(checks: ReadinessCheck[], registry: Registry): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const report = await checkReadiness(checks);
    if (report.ready) res.json({ status: 'ready', checks: report.checks });
    else res.status(503).json(report);
  });
  router.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  return router;
}
