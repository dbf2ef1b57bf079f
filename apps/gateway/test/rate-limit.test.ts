import request from 'supertest';
import { seedOrganization, startService, type RunningService } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

const WINDOW_MS = 4_000;

async function get(url: string, apiKey: string) {
  const res = await fetch(`${url}/api/v1/me`, { headers: { 'X-API-Key': apiKey } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
}

describe('sliding-window rate limit', () => {
  let harness: GatewayHarness;
  let gateways: RunningService[];

  beforeAll(async () => {
    harness = await startGatewayHarness({ RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) });
    gateways = await Promise.all([startService('gateway', harness.env), startService('gateway', harness.env)]);
  });
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await harness.close();
  });

  it('admits exactly the limit of 150 concurrent requests spread over two gateways, and no more', async () => {
    const busy = await seedOrganization(harness.database.db);
    const other = await seedOrganization(harness.database.db);

    const results = await Promise.all(Array.from({ length: 150 }, (_, i) => get(gateways[i % 2]!.url, busy.apiKey)));
    const admitted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(admitted).toHaveLength(60);
    expect(refused).toHaveLength(90);
    for (const res of refused) {
      expect(res.body).toEqual({ detail: 'Rate limit exceeded. Please try again later.' });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(WINDOW_MS / 1000);
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
      expect(res.headers.get('ratelimit-limit')).toBe('60');
    }
    const remaining = admitted.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => i));

    // Another organisation has a window of its own.
    expect((await get(gateways[0]!.url, other.apiKey)).status).toBe(200);

    // Once the oldest requests slide out of the window, requests are admitted again.
    const refusedAt = Date.now();
    let status = 429;
    while (status === 429 && Date.now() - refusedAt < WINDOW_MS * 3) {
      status = (await get(gateways[1]!.url, busy.apiKey)).status;
      if (status === 429) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    expect(Date.now() - refusedAt).toBeLessThan(WINDOW_MS * 2);
  });

  it('applies a per-organisation override', async () => {
    const small = await seedOrganization(harness.database.db, { rateLimitPerMinute: 5 });
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await request(harness.app).get('/api/v1/me').set('X-API-Key', small.apiKey)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });

  it('counts requests that repeat the same X-Request-Id one by one', async () => {
    const org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 3 });
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await request(harness.app).get('/api/v1/me').set('X-API-Key', org.apiKey).set('X-Request-Id', 'same-id')).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  it('counts requests that end in 404 too', async () => {
    const org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 2 });
    await request(harness.app).get('/api/v1/nothing-here').set('X-API-Key', org.apiKey).expect(404);
    await request(harness.app).get('/api/v1/me').set('X-API-Key', org.apiKey).expect(200);
    const res = await request(harness.app).get('/api/v1/me').set('X-API-Key', org.apiKey).expect(429);
    expect(res.headers['retry-after']).toBeDefined();
  });
});
