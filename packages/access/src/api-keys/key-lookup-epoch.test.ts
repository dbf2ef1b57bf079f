import { once } from 'node:events';
import { Redis } from 'ioredis';
import { createTestDatabase, seedOrganization, startRedisServer, uniqueId, type RedisServer, type TestDatabase } from '@docgen/testing';
import { setRateLimit } from '../organizations/create-organization';
import { createApiKey } from './create-api-key';
import { KeyLookupEpochs, keyLookupEpochKey } from './key-lookup-epoch';
import { revokeApiKey } from './revoke-api-key';

/** The writes behind the gateways' cached key lookups move the organisation's epoch, after their commit, before they return. */
describe('key lookup epochs', () => {
  let database: TestDatabase;
  let redis: Redis;
  let epochs: KeyLookupEpochs;
  const prefix = `test:${uniqueId()}:`;
  const epochOf = (organizationId: string) => redis.get(keyLookupEpochKey(prefix, organizationId));

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    epochs = new KeyLookupEpochs(redis, prefix);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await database.drop();
  });

  it('starts a missing epoch from Redis’s clock in microseconds, past anything it held before, then counts up', async () => {
    const org = await seedOrganization(database.db);
    const before = Date.now() * 1000;
    await epochs.bump(org.organizationId);
    const first = Number(await epochOf(org.organizationId));
    // Redis runs on this machine: its clock is ours.
    expect(first).toBeGreaterThan(before - 5_000_000);
    expect(first).toBeLessThan(Date.now() * 1000 + 5_000_000);
    await epochs.bump(org.organizationId);
    expect(Number(await epochOf(org.organizationId))).toBe(first + 1);

    // Lost (flushed, evicted, a restart without its data): it starts again past the old value.
    await redis.del(keyLookupEpochKey(prefix, org.organizationId));
    await epochs.bump(org.organizationId);
    expect(Number(await epochOf(org.organizationId))).toBeGreaterThan(first + 1);
  });

  it('a revoke moves its organisation’s epoch, also when repeated; a key that is not found moves none', async () => {
    const org = await seedOrganization(database.db);
    const other = await seedOrganization(database.db);
    await epochs.bump(org.organizationId);
    await epochs.bump(other.organizationId);
    const [start, otherStart] = [await epochOf(org.organizationId), await epochOf(other.organizationId)];

    await revokeApiKey(database.db, epochs, { id: org.apiKeyId });
    expect(Number(await epochOf(org.organizationId))).toBe(Number(start) + 1);
    await revokeApiKey(database.db, epochs, { id: org.apiKeyId, organizationId: org.organizationId });
    expect(Number(await epochOf(org.organizationId))).toBe(Number(start) + 2);

    await expect(revokeApiKey(database.db, epochs, { id: other.apiKeyId, organizationId: org.organizationId })).rejects.toMatchObject({
      code: 'api_key_not_found',
    });
    expect(await epochOf(other.organizationId)).toBe(otherStart);
    expect(Number(await epochOf(org.organizationId))).toBe(Number(start) + 2);
  });

  it('a rate limit change moves the epoch', async () => {
    const org = await seedOrganization(database.db);
    await epochs.bump(org.organizationId);
    const start = Number(await epochOf(org.organizationId));
    expect((await setRateLimit(database.db, epochs, org.organizationId, 7)).rateLimitPerMinute).toBe(7);
    expect(Number(await epochOf(org.organizationId))).toBe(start + 1);
  });

  describe('with Redis unreachable', () => {
    let server: RedisServer;
    let offline: Redis;

    beforeAll(async () => {
      server = await startRedisServer();
      offline = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 100 });
      offline.on('error', () => undefined);
      await once(offline, 'ready');
      await server.stop();
    });
    afterAll(async () => {
      offline.disconnect();
      await server.stop();
    });

    it('a revoke is saved but not answered as done, and says to repeat it', async () => {
      const org = await seedOrganization(database.db);
      const { apiKey } = await createApiKey(database.db, { organizationId: org.organizationId, name: 'leaked', expiresAt: null });
      const unreachable = new KeyLookupEpochs(offline, prefix);
      await expect(revokeApiKey(database.db, unreachable, { id: apiKey.id })).rejects.toMatchObject({
        code: 'key_lookups_unreachable',
        message: expect.stringContaining('repeat it once Redis answers'),
      });
      expect((await database.db.apiKey.findUniqueOrThrow({ where: { id: apiKey.id } })).revokedAt).toBeInstanceOf(Date);
      await expect(setRateLimit(database.db, unreachable, org.organizationId, 9)).rejects.toMatchObject({ code: 'key_lookups_unreachable' });
    });
  });
});
