import request from 'supertest';
import { KeyLookupEpochs, revokeApiKey } from '@docgen/access';
import { seedOrganization, startService, type RunningService } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

const INVALID = { detail: 'Invalid or missing API key', code: 'invalid_api_key' };

describe('X-API-Key authentication', () => {
  let harness: GatewayHarness;

  beforeAll(async () => {
    harness = await startGatewayHarness();
  });
  afterAll(() => harness.close());

  it('admits a live key and tells the caller who it is', async () => {
    const org = await seedOrganization(harness.database.db, { name: 'acme-auth' });
    const res = await request(harness.app).get('/api/v1/me').set('X-API-Key', org.apiKey).expect(200);
    expect(res.body.organization).toEqual({ id: org.organizationId, name: 'acme-auth', rate_limit_per_minute: 60 });
    expect(res.body.api_key).toMatchObject({ id: org.apiKeyId, prefix: org.apiKey.slice(0, 12), expires_at: null });
    expect(JSON.stringify(res.body)).not.toContain(org.apiKey);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['not svc_-prefixed', 'sk_live_0123456789abcdefghijABCDEFGHIJ'],
    ['malformed after the prefix', 'svc_not a key; DROP TABLE api_keys'],
    ['unknown', 'svc_0123456789abcdefghijABCDEFGHIJklmnopqr'],
  ])('rejects a %s key with 401', async (_case, key) => {
    const req = request(harness.app).get('/api/v1/me');
    if (key !== undefined) req.set('X-API-Key', key);
    const res = await req.expect(401);
    expect(res.body).toEqual(INVALID);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  });

  it('rejects a revoked key with 401', async () => {
    const org = await seedOrganization(harness.database.db);
    await harness.database.db.apiKey.update({ where: { id: org.apiKeyId }, data: { revokedAt: new Date() } });
    const res = await request(harness.app).get('/api/v1/me').set('X-API-Key', org.apiKey).expect(401);
    expect(res.body).toEqual(INVALID);
  });

  it('rejects an expired key with 401 and admits one that expires later', async () => {
    const expired = await seedOrganization(harness.database.db, { keyExpiresAt: new Date(Date.now() - 1000) });
    expect((await request(harness.app).get('/api/v1/me').set('X-API-Key', expired.apiKey).expect(401)).body).toEqual(INVALID);
    const later = await seedOrganization(harness.database.db, { keyExpiresAt: new Date(Date.now() + 3_600_000) });
    await request(harness.app).get('/api/v1/me').set('X-API-Key', later.apiKey).expect(200);
  });

  it('records when a key was last used', async () => {
    const org = await seedOrganization(harness.database.db);
    await request(harness.app).get('/api/v1/me').set('X-API-Key', org.apiKey).expect(200);
    const deadline = Date.now() + 5_000;
    let key = await harness.database.db.apiKey.findUniqueOrThrow({ where: { id: org.apiKeyId } });
    while (!key.lastUsedAt && Date.now() < deadline) {
      key = await harness.database.db.apiKey.findUniqueOrThrow({ where: { id: org.apiKeyId } });
    }
    expect(key.lastUsedAt).toBeInstanceOf(Date);
  });

  it('keeps /healthz, /readyz, /metrics, /docs and the OpenAPI document open', async () => {
    await request(harness.app).get('/healthz').expect(200);
    await request(harness.app).get('/readyz').expect(200);
    await request(harness.app).get('/metrics').expect(200);
    await request(harness.app).get('/api/v1/openapi.json').expect(200);
    await request(harness.app).get('/docs/').expect(200);
  });

  describe('across replicas', () => {
    let gateways: RunningService[];

    beforeAll(async () => {
      gateways = await Promise.all([startService('gateway', harness.env), startService('gateway', harness.env)]);
    });
    afterAll(() => Promise.all(gateways.map((gateway) => gateway.stop())));

    it('rejects a revoked key on the very next request to another gateway process', async () => {
      const org = await seedOrganization(harness.database.db);
      // Twice each: the second request stamps the replica's cached lookup with the epoch.
      for (const gateway of [...gateways, ...gateways]) {
        const res = await fetch(`${gateway.url}/api/v1/me`, { headers: { 'X-API-Key': org.apiKey } });
        expect(res.status).toBe(200);
      }
      // As the API and the CLI revoke: committed, then the key lookup epoch moved.
      await revokeApiKey(harness.database.db, new KeyLookupEpochs(harness.redis, harness.config.REDIS_KEY_PREFIX), { id: org.apiKeyId });
      for (const gateway of gateways) {
        const res = await fetch(`${gateway.url}/api/v1/me`, { headers: { 'X-API-Key': org.apiKey } });
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual(INVALID);
      }
    });
  });
});
