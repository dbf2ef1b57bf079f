import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createPrismaClient, type Database } from './client';
import { applyMigrations, ensureDatabase } from './migrate';

const SERVER_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';

/**
 * A PostgreSQL whose TimeZone is not UTC (Debian's packages take the machine's): Prisma's
 * driver adapter writes a Date as UTC digits without an offset and reads timestamptz text
 * without its offset, so its instants must be UTC on the session whatever the server says.
 */
describe('createPrismaClient on a database whose TimeZone is not UTC', () => {
  const name = `docgen_tz_${randomUUID().replaceAll('-', '')}`;
  let admin: pg.Client;
  let db: Database;

  beforeAll(async () => {
    await ensureDatabase(`${SERVER_URL}/${name}`);
    await applyMigrations(`${SERVER_URL}/${name}`);
    admin = new pg.Client({ connectionString: `${SERVER_URL}/postgres` });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${name}" SET timezone = 'Asia/Kolkata'`);
    db = createPrismaClient(`${SERVER_URL}/${name}`, { poolSize: 2 });
  });
  afterAll(async () => {
    await db?.$disconnect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });

  it('stores the instant a Date names, as SQL and the plain driver see it', async () => {
    const organization = await db.organization.create({ data: { name: 'time zones' } });
    const expiresAt = new Date('2030-01-01T00:00:00.000Z');
    const key = await db.apiKey.create({
      data: { organizationId: organization.id, name: 'k', keyHash: 'a'.repeat(64), prefix: 'dg_', expiresAt },
    });
    const [row] = await db.sql.query<{ epoch: number; expires_at: Date }>(
      { text: 'SELECT extract(epoch FROM expires_at)::float8 AS epoch, expires_at FROM api_keys WHERE id = $1' },
      [key.id],
    );
    expect(row!.epoch * 1000).toBe(expiresAt.getTime());
    expect(row!.expires_at.getTime()).toBe(expiresAt.getTime());
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).expiresAt?.getTime()).toBe(expiresAt.getTime());
  });

  it("reads the database's own now() as the instant it is", async () => {
    const before = Date.now();
    const organization = await db.organization.create({ data: { name: 'now' } });
    const [{ created_at }] = (await db.sql.query<{ created_at: Date }>({ text: 'SELECT created_at FROM organizations WHERE id = $1' }, [organization.id])) as [
      { created_at: Date },
    ];
    // Same clock, one machine: within a second either way, not hours.
    expect(Math.abs(organization.createdAt.getTime() - before)).toBeLessThan(1_000);
    expect(organization.createdAt.getTime()).toBe(created_at.getTime());
  });

  it('still says the database is in its own TimeZone to a plain connection', async () => {
    const other = new pg.Client({ connectionString: `${SERVER_URL}/${name}` });
    await other.connect();
    try {
      expect((await other.query('SHOW TimeZone')).rows[0].TimeZone).toBe('Asia/Kolkata');
    } finally {
      await other.end();
    }
  });
});
