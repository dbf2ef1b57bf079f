import { createPrismaClient } from './client';

const url = process.env.TEST_POSTGRES_URL ? `${process.env.TEST_POSTGRES_URL}/postgres` : 'postgresql://postgres@127.0.0.1:5432/postgres';

async function synchronousCommitOf(options: Parameters<typeof createPrismaClient>[1]): Promise<string[]> {
  const db = createPrismaClient(url, { ...options, poolSize: 2 });
  try {
    // Two at once, so both of the pool's connections answer.
    const answers = await Promise.all(
      [1, 2].map(() =>
        db.sql.query<{ synchronous_commit: string }>({ text: 'SELECT current_setting($1) AS synchronous_commit, pg_sleep(0.05)' }, ['synchronous_commit']),
      ),
    );
    return answers.map(([row]) => row!.synchronous_commit);
  } finally {
    await db.$disconnect();
  }
}

describe('synchronousCommit', () => {
  it("leaves PostgreSQL's durable commits alone by default", async () => {
    expect(await synchronousCommitOf({})).toEqual(['on', 'on']);
  });

  it('turns them off on every connection of the pool when asked', async () => {
    expect(await synchronousCommitOf({ synchronousCommit: false })).toEqual(['off', 'off']);
  });
});
