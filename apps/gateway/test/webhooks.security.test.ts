import request from 'supertest';
import { seedOrganization, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

describe('webhook registration refuses what it must not reach (default config)', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;

  beforeAll(async () => {
    harness = await startGatewayHarness();
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
  });
  afterAll(() => harness.close());

  const register = (url: string, apiKey = org.apiKey) => request(harness.app).post('/api/v1/webhooks').set('X-API-Key', apiKey).send({ url });

  it('refuses http:// with the contract message', async () => {
    const res = await register('http://example.com/hook').expect(422);
    expect(res.body.detail).toBe('Webhook URL must use HTTPS');
  });

  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://10.0.0.1/hook', 'private'],
    ['https://192.168.1.20/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'linkLocal'],
    ['https://100.64.1.1/hook', 'carrierGradeNat'],
    ['https://[::1]/hook', 'loopback'],
    ['https://localhost:8443/hook', 'loopback'],
  ])('refuses %s (%s)', async (url, range) => {
    const res = await register(url).expect(422);
    expect(res.body.detail).toMatch(new RegExp(`^Webhook URL must be publicly reachable; .* resolves to a ${range} address$`));
    expect(res.body.errors[0].path).toBe('url');
  });

  it('stores nothing for a refused registration and refuses credentials in the URL', async () => {
    await register('https://user:pass@127.0.0.1/hook').expect(422);
    expect(await harness.database.db.webhookEndpoint.count()).toBe(0);
  });

  it("answers 404 for another organisation's endpoint and never lists secrets", async () => {
    const endpoint = await harness.database.db.webhookEndpoint.create({
      data: { organizationId: org.organizationId, url: 'https://hooks.example.com/x', events: ['document.ready'], secret: 'whsec_AAAA' },
    });
    const stranger = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
    for (const [method, path] of [
      ['delete', ''],
      ['post', '/test'],
      ['get', '/deliveries'],
    ] as const) {
      const res = await request(harness.app)[method](`/api/v1/webhooks/${endpoint.id}${path}`).set('X-API-Key', stranger.apiKey);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Webhook endpoint not found', code: 'webhook_not_found' });
    }
    await request(harness.app).get(`/api/v1/webhooks/${endpoint.id}/deliveries?is_uat=true`).set('X-API-Key', org.apiKey).expect(404);
    const list = await request(harness.app).get('/api/v1/webhooks').set('X-API-Key', org.apiKey).expect(200);
    expect(list.body.items).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
  });
});
