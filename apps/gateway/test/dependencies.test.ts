import { seedOrganization, startRedisServer, startService, type RedisServer, type RunningService } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

async function readyz(gateway: RunningService) {
  const res = await fetch(`${gateway.url}/readyz`);
  return { status: res.status, body: (await res.json()) as { detail?: string; checks: Record<string, string> } };
}

async function waitUntil(predicate: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe('when a dependency is down', () => {
  let harness: GatewayHarness;

  beforeAll(async () => {
    harness = await startGatewayHarness();
  });
  afterAll(() => harness.close());

  describe('Redis', () => {
    let redis: RedisServer;
    let gateway: RunningService;

    beforeAll(async () => {
      redis = await startRedisServer();
      gateway = await startService('gateway', { ...harness.env, REDIS_URL: redis.url });
    });
    afterAll(async () => {
      await gateway.stop();
      await redis.stop();
    });

    it('answers 503 naming Redis, says so on /readyz, and recovers by itself when Redis is back', async () => {
      const org = await seedOrganization(harness.database.db);
      const call = () => fetch(`${gateway.url}/api/v1/me`, { headers: { 'X-API-Key': org.apiKey } });
      expect((await call()).status).toBe(200);

      await redis.stop();
      const down = await call();
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ detail: 'Service unavailable: redis is unreachable. Please try again shortly.', code: 'dependency_unavailable' });
      const report = await readyz(gateway);
      expect(report.status).toBe(503);
      expect(report.body.checks).toEqual({ postgresql: 'ok', redis: 'down' });
      expect(report.body.detail).toBe('Service unavailable: redis is unreachable');
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);

      await redis.start();
      expect(await waitUntil(async () => (await readyz(gateway)).status === 200, 10_000)).toBe(true);
      expect((await call()).status).toBe(200);
    });
  });

  describe('PostgreSQL', () => {
    let gateway: RunningService;

    beforeAll(async () => {
      // A port nothing listens on: PostgreSQL "down" without stopping the shared server.
      gateway = await startService('gateway', { ...harness.env, DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/docgen' });
    });
    afterAll(() => gateway.stop());

    it('answers 503 naming PostgreSQL and says so on /readyz', async () => {
      const res = await fetch(`${gateway.url}/api/v1/me`, { headers: { 'X-API-Key': 'svc_0123456789abcdefghijABCDEFGHIJklmnopqr' } });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ detail: 'Service unavailable: postgresql is unreachable. Please try again shortly.', code: 'dependency_unavailable' });
      const report = await readyz(gateway);
      expect(report.status).toBe(503);
      expect(report.body.checks).toEqual({ postgresql: 'down', redis: 'ok' });
    });
  });
});
