import { Redis } from 'ioredis';
import { createTestDatabase, seedOrganization, uniqueId, type SeededOrganization, type TestDatabase } from '@docgen/testing';
import { AccessError } from '../errors';
import { createApiKey } from './create-api-key';
import { KeyLookupEpochs } from './key-lookup-epoch';
import { listApiKeys } from './list-api-keys';
import { parseExpiry } from './parse-expiry';
import { revokeApiKey } from './revoke-api-key';

describe('parseExpiry (the API and the CLI read an expiry the same way)', () => {
  it.each([
    ['2027-01-31', '2027-01-31T00:00:00.000Z'],
    ['2027-01-31T12:30:00Z', '2027-01-31T12:30:00.000Z'],
    ['2027-01-31T12:30+02:00', '2027-01-31T10:30:00.000Z'],
  ])('reads %s', (value, iso) => expect(parseExpiry(value)?.toISOString()).toBe(iso));

  it.each(['tomorrow', '2027-13-45', '2027-01-31T12:30:00', '31/01/2027', ''])('refuses %j', (value) => expect(parseExpiry(value)).toBeUndefined());
});

describe('API keys', () => {
  let database: TestDatabase;
  let a: SeededOrganization;
  let b: SeededOrganization;
  let redis: Redis;
  let epochs: KeyLookupEpochs;
  const prefix = `test:${uniqueId()}:`;

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    epochs = new KeyLookupEpochs(redis, prefix);
    a = await seedOrganization(database.db);
    b = await seedOrganization(database.db);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await database.drop();
  });

  it('lists one organisation’s keys, newest first, for the API and the CLI alike', async () => {
    const first = await createApiKey(database.db, { organizationId: a.organizationId, name: 'first', expiresAt: null });
    const second = await createApiKey(database.db, { organizationId: a.organizationId, name: 'second', expiresAt: null });
    expect(first.key).toMatch(/^svc_/);
    const ids = (await listApiKeys(database.db, a.organizationId)).map((key) => key.id);
    expect(ids).toEqual([second.apiKey.id, first.apiKey.id, a.apiKeyId]);
    expect(ids).not.toContain(b.apiKeyId);
  });

  it('revokes once, keeping the first revoked_at; another organisation’s key is not found', async () => {
    const { apiKey } = await createApiKey(database.db, { organizationId: a.organizationId, name: 'gone', expiresAt: null });
    const revoked = await revokeApiKey(database.db, epochs, { id: apiKey.id, organizationId: a.organizationId });
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    const again = await revokeApiKey(database.db, epochs, { id: apiKey.id });
    expect(again.revokedAt).toEqual(revoked.revokedAt);

    const foreign = revokeApiKey(database.db, epochs, { id: b.apiKeyId, organizationId: a.organizationId });
    await expect(foreign).rejects.toBeInstanceOf(AccessError);
    await expect(foreign).rejects.toMatchObject({ code: 'api_key_not_found', message: 'API key not found' });
    expect((await database.db.apiKey.findUniqueOrThrow({ where: { id: b.apiKeyId } })).revokedAt).toBeNull();
    await expect(revokeApiKey(database.db, epochs, { id: 'not-a-uuid' })).rejects.toMatchObject({ code: 'api_key_not_found' });
  });
});
