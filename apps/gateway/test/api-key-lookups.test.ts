import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { KeyLookupEpochs, createApiKey, revokeApiKey } from '@docgen/access';
import type { Database } from '@docgen/db';
import { hashApiKey } from '@docgen/security';
import { createTestDatabase, seedOrganization, startRedisServer, uniqueId, type RedisServer, type TestDatabase } from '@docgen/testing';
import { createRedisConnection, waitForRedis } from '@docgen/queue';
import { ApiKeyLookups } from '../src/api-key-lookups';
import { RateLimiterUnavailable, SlidingWindowRateLimiter } from '../src/rate-limiter';

/**
 * The real PostgreSQL and Redis, seen through a database whose key lookups are counted and
 * whose answers can be held back (the query has run; its rows wait): that is how a lookup is
 * kept in flight while a revoke lands.
 */
function watchedDatabase(db: Database) {
  let held: Promise<void> | undefined;
  let release = () => {};
  let arrived = () => {};
  const watched = {
    lookups: 0,
    /** Holds the next answers until `release`; resolves once a lookup has read its rows. */
    hold(): Promise<void> {
      held = new Promise((resolve) => (release = () => ((held = undefined), resolve())));
      return new Promise((resolve) => (arrived = resolve));
    },
    release: () => release(),
    // findApiKey reads through db.sql alone.
    db: {
      sql: {
        query: async <Row>(statement: Parameters<Database['sql']['query']>[0], values?: unknown[]): Promise<Row[]> => {
          const rows = await db.sql.query<Row>(statement, values);
          watched.lookups += 1;
          if (held) {
            arrived();
            await held;
          }
          return rows;
        },
      },
    } as unknown as Database,
  };
  return watched;
}

describe('API-key lookups cached per replica, checked against the key lookup epoch', () => {
  let database: TestDatabase;
  let redis: Redis;
  let limiter: SlidingWindowRateLimiter;
  let epochs: KeyLookupEpochs;
  const prefix = `test:${uniqueId()}:`;
  const admit = (lookups: ApiKeyLookups, key: string) => lookups.admit(hashApiKey(key), new Date(), randomUUID());

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'request');
    await waitForRedis(redis, 5_000);
    limiter = new SlidingWindowRateLimiter(redis, prefix, 60_000);
    epochs = new KeyLookupEpochs(redis, prefix);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await database.drop();
  });

  it('looks a key up twice (the second time stamped with the epoch read before it), then no more until a write moves the epoch', async () => {
    const org = await seedOrganization(database.db);
    const watched = watchedDatabase(database.db);
    const lookups = new ApiKeyLookups(watched.db, limiter, prefix, 100);

    for (let i = 0; i < 5; i++) expect(await admit(lookups, org.apiKey)).toMatchObject({ key: { id: org.apiKeyId }, decision: { admitted: true } });
    expect(watched.lookups).toBe(2);
    // Another organisation's write leaves this one's lookups alone.
    const other = await seedOrganization(database.db);
    await epochs.bump(other.organizationId);
    await admit(lookups, org.apiKey);
    expect(watched.lookups).toBe(2);

    await revokeApiKey(database.db, epochs, { id: org.apiKeyId });
    expect(await admit(lookups, org.apiKey)).toBeUndefined();
    expect(watched.lookups).toBe(3);
    expect(lookups.size).toBe(0);
  });

  it('counts every request in the rate limit, cached or not, and a refused key in none', async () => {
    const org = await seedOrganization(database.db, { rateLimitPerMinute: 3 });
    const lookups = new ApiKeyLookups(database.db, limiter, prefix, 100);
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push((await admit(lookups, org.apiKey))!.decision);
    expect(decisions.map((d) => [d.admitted, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    const revokedOrg = await seedOrganization(database.db, { rateLimitPerMinute: 3 });
    await admit(lookups, revokedOrg.apiKey);
    await admit(lookups, revokedOrg.apiKey);
    await revokeApiKey(database.db, epochs, { id: revokedOrg.apiKeyId });
    expect(await admit(lookups, revokedOrg.apiKey)).toBeUndefined();
    expect(await redis.zcard(`${prefix}ratelimit:{${revokedOrg.organizationId}}`)).toBe(2);
  });

  it('a lookup in flight while a revoke lands keeps the epoch it read before, so the next request looks again and is refused', async () => {
    const org = await seedOrganization(database.db);
    const watched = watchedDatabase(database.db);
    const lookups = new ApiKeyLookups(watched.db, limiter, prefix, 100);
    await admit(lookups, org.apiKey);
    await admit(lookups, org.apiKey);
    // Another key of the organisation is created and a rate limit set: the epoch moves, so
    // the next request reads the new epoch and looks the key up again.
    await epochs.bump(org.organizationId);

    const arrived = watched.hold();
    const inFlight = admit(lookups, org.apiKey);
    await arrived; // its lookup read the key live, before the revoke
    await revokeApiKey(database.db, epochs, { id: org.apiKeyId }); // committed, epoch moved, answered
    watched.release();
    // It started before the revoke was answered, so it may pass, as without a cache.
    expect(await inFlight).toMatchObject({ key: { id: org.apiKeyId } });
    // Stamped with the epoch read after the revoke, its row would be trusted now.
    expect(await admit(lookups, org.apiKey)).toBeUndefined();
  });

  it('a first lookup in flight while a revoke lands is never trusted', async () => {
    const org = await seedOrganization(database.db);
    const watched = watchedDatabase(database.db);
    const lookups = new ApiKeyLookups(watched.db, limiter, prefix, 100);
    const arrived = watched.hold();
    const inFlight = admit(lookups, org.apiKey);
    await arrived;
    await revokeApiKey(database.db, epochs, { id: org.apiKeyId });
    watched.release();
    expect(await inFlight).toBeDefined();
    expect(await admit(lookups, org.apiKey)).toBeUndefined();
  });

  it('a request whose script was out when the connection dropped trusts nothing its answer says, and looks its key up', async () => {
    const org = await seedOrganization(database.db);
    const watched = watchedDatabase(database.db);
    const lookups = new ApiKeyLookups(watched.db, limiter, prefix, 100);
    await admit(lookups, org.apiKey);
    await admit(lookups, org.apiKey); // cached, stamped
    // Revoked where the epoch cannot show it (as after Redis came back holding an older epoch).
    await database.db.apiKey.update({ where: { id: org.apiKeyId }, data: { revokedAt: new Date() } });
    const lookupsBefore = watched.lookups;
    const inFlight = admit(lookups, org.apiKey); // its script is sent now
    lookups.clear(); // what a dropped connection does, before the script's reply arrives
    expect(await inFlight).toBeUndefined();
    expect(watched.lookups).toBe(lookupsBefore + 1);
  });

  it('keeps at most its capacity, dropping the least recently used key; with none it looks every request up', async () => {
    const org = await seedOrganization(database.db, { rateLimitPerMinute: 1_000 });
    const keys = await Promise.all(
      [1, 2, 3, 4].map(async (n) => (await createApiKey(database.db, { organizationId: org.organizationId, name: `k${n}`, expiresAt: null })).key),
    );
    const watched = watchedDatabase(database.db);
    const lookups = new ApiKeyLookups(watched.db, limiter, prefix, 3);
    for (const key of keys.slice(0, 3)) {
      await admit(lookups, key);
      await admit(lookups, key);
    }
    await admit(lookups, keys[0]!); // k1 is now the most recently used; k2 the least
    expect([lookups.size, watched.lookups]).toEqual([3, 6]);
    await admit(lookups, keys[3]!);
    expect(lookups.size).toBe(3);
    await admit(lookups, keys[0]!);
    await admit(lookups, keys[2]!);
    expect(watched.lookups).toBe(7); // k1 and k3 were kept
    await admit(lookups, keys[1]!);
    expect(watched.lookups).toBe(8); // k2 was dropped
    expect(lookups.size).toBe(3);

    const none = watchedDatabase(database.db);
    const uncached = new ApiKeyLookups(none.db, limiter, prefix, 0);
    for (let i = 0; i < 3; i++) await admit(uncached, keys[0]!);
    expect([uncached.size, none.lookups]).toEqual([0, 3]);
  });

  it('looks a cached key up again once it is older than the maximum age, and refuses it once it expires', async () => {
    const expiresAt = new Date(Date.now() + 1_500);
    const org = await seedOrganization(database.db, { keyExpiresAt: expiresAt });
    const watched = watchedDatabase(database.db);
    const lookups = new ApiKeyLookups(watched.db, limiter, prefix, 100, 1_000);
    const at = (ms: number) => lookups.admit(hashApiKey(org.apiKey), new Date(ms), randomUUID());
    const now = Date.now();
    await at(now);
    await at(now);
    await at(now + 500);
    expect(watched.lookups).toBe(2);
    await at(now + 1_200); // past the maximum age: looked up (and stamped) again
    expect(watched.lookups).toBe(3);
    expect(await at(expiresAt.getTime())).toBeUndefined(); // expired: no write needed
  });

  it('a lookup in flight when the cache is cleared (Redis reconnected) keeps its row to itself', async () => {
    const org = await seedOrganization(database.db);
    const watched = watchedDatabase(database.db);
    const lookups = new ApiKeyLookups(watched.db, limiter, prefix, 100);
    const arrived = watched.hold();
    const inFlight = admit(lookups, org.apiKey);
    await arrived;
    lookups.clear();
    watched.release();
    await inFlight;
    expect(lookups.size).toBe(0);
  });

  describe('with Redis unreachable', () => {
    let server: RedisServer;
    let own: Redis;

    beforeAll(async () => {
      server = await startRedisServer();
      own = createRedisConnection(server.url, 'request');
      await waitForRedis(own, 5_000);
    });
    afterAll(async () => {
      own.disconnect();
      await server.stop();
    });

    it('never answers from the cache: the request fails as the rate limiter does', async () => {
      const org = await seedOrganization(database.db);
      const watched = watchedDatabase(database.db);
      const lookups = new ApiKeyLookups(watched.db, new SlidingWindowRateLimiter(own, prefix, 60_000), prefix, 100);
      await admit(lookups, org.apiKey);
      await admit(lookups, org.apiKey);
      await server.stop();
      await expect(admit(lookups, org.apiKey)).rejects.toBeInstanceOf(RateLimiterUnavailable);
      expect(watched.lookups).toBe(2);
    });
  });
});
