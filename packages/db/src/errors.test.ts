import { createPrismaClient } from './client';
import { isDatabaseUnavailable } from './errors';

describe('isDatabaseUnavailable', () => {
  it('recognises what Prisma throws when PostgreSQL cannot be reached', async () => {
    const db = createPrismaClient('postgresql://postgres@127.0.0.1:1/docgen');
    const error = await db.$queryRaw`SELECT 1`.catch((e: unknown) => e);
    await db.$disconnect();
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('does not mistake a bad query for an outage', async () => {
    const db = createPrismaClient(process.env.TEST_POSTGRES_URL ? `${process.env.TEST_POSTGRES_URL}/postgres` : 'postgresql://postgres@127.0.0.1:5432/postgres');
    const error = await db.$queryRaw`SELECT * FROM no_such_table`.catch((e: unknown) => e);
    await db.$disconnect();
    expect(error).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
