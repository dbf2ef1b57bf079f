import request from 'supertest';
import { KeyLookupEpochs, keyLookupEpochKey, revokeApiKey, setRateLimit } from '@docgen/access';
import { seedOrganization, startRedisServer, startService, type RedisServer, type RunningService, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';
import { browser, seedPerson, withKey, type Browser } from './people-support';

const INVALID_KEY = { detail: 'Invalid or missing API key', code: 'invalid_api_key' };

/**
 * Gateways cache API-key lookups per replica; a revoke, or any other write behind the lookup,
 * must still reach the very next request on every replica. Two gateway processes (a, b) share
 * one PostgreSQL and Redis, as replicas do.
 */
describe('cached API-key lookups across replicas', () => {
  let harness: GatewayHarness;
  let a: RunningService;
  let b: RunningService;
  let org: SeededOrganization;
  let admin: Browser;
  let epochs: KeyLookupEpochs;

  const me = (gateway: RunningService, key: string) => withKey(gateway.url, key, 'GET', '/api/v1/me');
  /** Enough requests on both replicas that each serves the key from its cache (the second lookup stamps it). */
  async function warm(key: string) {
    for (const gateway of [a, b]) for (let i = 0; i < 3; i++) expect((await me(gateway, key)).status).toBe(200);
  }

  beforeAll(async () => {
    harness = await startGatewayHarness();
    [a, b] = await Promise.all([startService('gateway', harness.env), startService('gateway', harness.env)]);
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
    admin = await browser(a.url, await seedPerson(harness.database.db, org.organizationId, 'admin'));
    epochs = new KeyLookupEpochs(harness.redis, harness.config.REDIS_KEY_PREFIX);
  });
  afterAll(async () => {
    await Promise.all([a.stop(), b.stop()]);
    await harness.close();
  });

  it('a key revoked through one replica is refused on the very next request through the other, and through itself', async () => {
    const created = await admin.call(a.url, 'POST', '/api/v1/api-keys', { body: { name: 'cached bot' } });
    expect(created.status).toBe(201);
    await warm(created.body.key);
    expect((await admin.call(a.url, 'DELETE', `/api/v1/api-keys/${created.body.id}`)).status).toBe(204);
    expect(await me(b, created.body.key)).toMatchObject({ status: 401, body: INVALID_KEY });
    expect(await me(a, created.body.key)).toMatchObject({ status: 401, body: INVALID_KEY });
  });

  it('the cache is in use: a change made behind packages/access’s back (SQL by hand) is seen once the epoch moves', async () => {
    const other = await seedOrganization(harness.database.db);
    await warm(other.apiKey);
    await harness.database.db.apiKey.update({ where: { id: other.apiKeyId }, data: { revokedAt: new Date() } });
    expect((await me(b, other.apiKey)).status).toBe(200); // b never asked PostgreSQL
    await epochs.bump(other.organizationId);
    expect(await me(b, other.apiKey)).toMatchObject({ status: 401, body: INVALID_KEY });
  });

  it('a new rate limit (as `orgs set-rate-limit` sets it) applies on the next request on every replica', async () => {
    const limited = await seedOrganization(harness.database.db, { rateLimitPerMinute: 1_000 });
    await warm(limited.apiKey);
    await setRateLimit(harness.database.db, epochs, limited.organizationId, 500);
    for (const gateway of [b, a]) {
      const res = await me(gateway, limited.apiKey);
      expect(res.headers.get('ratelimit-limit')).toBe('500');
      expect(res.body.organization.rate_limit_per_minute).toBe(500);
    }
  });

  it('a key that expires while cached is refused from that moment, with no write', async () => {
    const expiresAt = new Date(Date.now() + 2_000);
    const expiring = await seedOrganization(harness.database.db, { keyExpiresAt: expiresAt });
    await warm(expiring.apiKey);
    // The key's own deadline, not an event: wait for it.
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 10));
    expect(await me(b, expiring.apiKey)).toMatchObject({ status: 401, body: INVALID_KEY });
  });

  it('a revoke of one organisation’s key leaves another organisation’s cached keys served from cache', async () => {
    const first = await seedOrganization(harness.database.db);
    const second = await seedOrganization(harness.database.db);
    await warm(first.apiKey);
    await warm(second.apiKey);
    await harness.database.db.apiKey.update({ where: { id: second.apiKeyId }, data: { name: 'renamed by hand' } });
    await revokeApiKey(harness.database.db, epochs, { id: first.apiKeyId });
    expect((await me(b, first.apiKey)).status).toBe(401);
    expect((await me(b, second.apiKey)).body.api_key.name).toBe('test'); // still the cached row
  });
});

describe('cached API-key lookups when Redis goes away', () => {
  let server: RedisServer;
  let harness: GatewayHarness;

  beforeAll(async () => {
    server = await startRedisServer();
    harness = await startGatewayHarness({ REDIS_URL: server.url });
  });
  afterAll(async () => {
    await harness.close();
    await server.stop();
  });

  const me = (key: string) => request(harness.app).get('/api/v1/me').set('X-API-Key', key);

  it('serves nothing from the cache while Redis is away (503), and forgets it: Redis may come back with older epochs', async () => {
    const org = await seedOrganization(harness.database.db);
    for (let i = 0; i < 3; i++) await me(org.apiKey).expect(200);
    const epochKey = keyLookupEpochKey(harness.config.REDIS_KEY_PREFIX, org.organizationId);
    const stamped = await harness.redis.get(epochKey);
    expect(stamped).toMatch(/^\d+$/);

    await server.stop();
    try {
      expect((await me(org.apiKey).expect(503)).body).toEqual({
        detail: 'Service unavailable: redis is unreachable. Please try again shortly.',
        code: 'dependency_unavailable',
      });
      // A revoke that cannot tell the gateways is saved, and answered as not done.
      const epochs = new KeyLookupEpochs(harness.redis, harness.config.REDIS_KEY_PREFIX);
      await expect(revokeApiKey(harness.database.db, epochs, { id: org.apiKeyId })).rejects.toMatchObject({ code: 'key_lookups_unreachable' });
    } finally {
      await server.start();
    }

    // Redis comes back holding the epoch the cached row was stamped with (a snapshot from before the revoke).
    await waitUntilReady(harness);
    await harness.redis.set(epochKey, stamped!);
    expect((await me(org.apiKey).expect(401)).body).toEqual(INVALID_KEY);
  });
});

async function waitUntilReady(harness: GatewayHarness) {
  if (harness.redis.status === 'ready') return;
  await new Promise((resolve) => harness.redis.once('ready', resolve));
}
