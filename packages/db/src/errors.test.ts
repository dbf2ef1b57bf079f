import { createPrismaClient } from './client';
import { isDatabaseUnavailable, isUniqueViolation } from './errors';

describe('isDatabaseUnavailable', () => {
  it('recognises what Prisma throws when PostgreSQL cannot be reached', async () => {
    const db = createPrismaClient('postgresql://postgres@127.0.0.1:1/docgen');
    const error = await db.$queryRaw`SELECT 1`.catch((e: unknown) => e);
    await db.$disconnect();
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('counts an interactive transaction that gets no connection in its time as the database being unavailable', async () => {
    const db = createPrismaClient(
      process.env.TEST_POSTGRES_URL ? `${process.env.TEST_POSTGRES_URL}/postgres` : 'postgresql://postgres@127.0.0.1:5432/postgres',
      { poolSize: 1 },
    );
    let release!: () => void;
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = db.$transaction(async () => {
      holding();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await held;
    const error = await db.$transaction(async (tx) => tx.$queryRaw`SELECT 1`, { maxWait: 100 }).catch((e: unknown) => e);
    release();
    await holder;
    await db.$disconnect();
    expect(error).toMatchObject({ code: 'P2028' });
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('does not take a transaction that ran past its own time limit for an outage', async () => {
    const db = createPrismaClient(
      process.env.TEST_POSTGRES_URL ? `${process.env.TEST_POSTGRES_URL}/postgres` : 'postgresql://postgres@127.0.0.1:5432/postgres',
    );
    const error = await db
      .$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT pg_sleep(0.3)`;
        },
        { timeout: 100 },
      )
      .catch((e: unknown) => e);
    await db.$disconnect();
    // Prisma names it P2010 or P2028 ("Transaction already closed"), by where the limit struck.
    expect(['P2010', 'P2028']).toContain((error as { code?: string }).code);
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('recognises a server that refuses more connections (53300) as unavailable', async () => {
    const base = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';
    const admin = createPrismaClient(`${base}/postgres`);
    const role = `docgen_full_${process.pid}`;
    await admin.$executeRawUnsafe(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 0`);
    try {
      const full = createPrismaClient(`${base.replace(/\/\/[^@/]*@/, '//')}/postgres`.replace('postgresql://', `postgresql://${role}@`));
      const viaPrisma = await full.$queryRaw`SELECT 1`.catch((e: unknown) => e);
      const viaSql = await full.sql.query({ text: 'SELECT 1' }).catch((e: unknown) => e);
      await full.$disconnect();
      expect(JSON.stringify(viaSql, Object.getOwnPropertyNames(viaSql))).toContain('53300');
      expect(isDatabaseUnavailable(viaPrisma)).toBe(true);
      expect(isDatabaseUnavailable(viaSql)).toBe(true);
    } finally {
      await admin.$executeRawUnsafe(`DROP ROLE ${role}`);
      await admin.$disconnect();
    }
  });

  it('does not mistake a bad query for an outage', async () => {
    const db = createPrismaClient(
      process.env.TEST_POSTGRES_URL ? `${process.env.TEST_POSTGRES_URL}/postgres` : 'postgresql://postgres@127.0.0.1:5432/postgres',
    );
    const error = await db.$queryRaw`SELECT * FROM no_such_table`.catch((e: unknown) => e);
    await db.$disconnect();
    expect(error).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('isUniqueViolation', () => {
  it('recognises a duplicate key from a raw query, and nothing else', async () => {
    const db = createPrismaClient(
      process.env.TEST_POSTGRES_URL ? `${process.env.TEST_POSTGRES_URL}/postgres` : 'postgresql://postgres@127.0.0.1:5432/postgres',
    );
    const errors = await db
      .$transaction(async (tx) => {
        await tx.$executeRawUnsafe('CREATE TEMP TABLE unique_check (k text PRIMARY KEY) ON COMMIT DROP');
        await tx.$queryRaw`INSERT INTO unique_check VALUES ('a') RETURNING k`;
        const duplicate = await tx.$queryRaw`INSERT INTO unique_check VALUES ('a') RETURNING k`.catch((e: unknown) => e);
        return [duplicate];
      })
      .catch((e: unknown) => [e]);
    const other = await db.$queryRaw`SELECT * FROM no_such_table`.catch((e: unknown) => e);
    await db.$disconnect();
    expect(isUniqueViolation(errors[0])).toBe(true);
    expect(isUniqueViolation(other)).toBe(false);
  });

  it('recognises a duplicate key from db.sql, and nothing else', async () => {
    const db = createPrismaClient(
      process.env.TEST_POSTGRES_URL ? `${process.env.TEST_POSTGRES_URL}/postgres` : 'postgresql://postgres@127.0.0.1:5432/postgres',
      { poolSize: 1 },
    );
    await db.sql.query({ text: 'CREATE TEMP TABLE unique_check_sql (k text PRIMARY KEY)' });
    await db.sql.query({ name: 'unique-check-insert', text: 'INSERT INTO unique_check_sql VALUES ($1)' }, ['a']);
    const duplicate = await db.sql.query({ name: 'unique-check-insert', text: 'INSERT INTO unique_check_sql VALUES ($1)' }, ['a']).catch((e: unknown) => e);
    const other = await db.sql.query({ text: 'SELECT * FROM no_such_table' }).catch((e: unknown) => e);
    await db.$disconnect();
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(isUniqueViolation(other)).toBe(false);
  });
});

describe('db.sql', () => {
  it('outlives an idle connection that PostgreSQL closes, before Prisma ever ran a query', async () => {
    const url = process.env.TEST_POSTGRES_URL ? `${process.env.TEST_POSTGRES_URL}/postgres` : 'postgresql://postgres@127.0.0.1:5432/postgres';
    let dropped!: (error: Error) => void;
    const droppedConnection = new Promise<Error>((resolve) => (dropped = resolve));
    const db = createPrismaClient(url, { poolSize: 1, onIdleConnectionError: dropped });
    const admin = createPrismaClient(url, { poolSize: 1 });
    const [first] = await db.sql.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid' });
    await admin.sql.query({ text: 'SELECT pg_terminate_backend($1)' }, [first!.pid]);
    expect((await droppedConnection).message).toMatch(/terminat/i);
    const [second] = await db.sql.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid' });
    expect(second!.pid).not.toBe(first!.pid);
    await Promise.all([db.$disconnect(), admin.$disconnect()]);
  });
});
