import pg from 'pg';
import { ASYNCHRONOUS_COMMIT } from './asynchronous-commit';

const url = process.env.TEST_POSTGRES_URL ? `${process.env.TEST_POSTGRES_URL}/postgres` : 'postgresql://postgres@127.0.0.1:5432/postgres';

describe('ASYNCHRONOUS_COMMIT', () => {
  let client: pg.Client;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE TEMP TABLE asynchronous_commit_check (id int PRIMARY KEY, n int NOT NULL)');
    await client.query('INSERT INTO asynchronous_commit_check VALUES (1, 0)');
  });
  afterAll(() => client.end());

  const setting = async () => (await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit;

  it("turns synchronous_commit off for the statement's own transaction only", async () => {
    expect(await setting()).toBe('on');
    const { rows } = await client.query(
      `WITH updated AS (UPDATE asynchronous_commit_check SET n = n + 1 WHERE id = 1 RETURNING n)
       SELECT updated.n, current_setting('synchronous_commit') AS during FROM updated CROSS JOIN ${ASYNCHRONOUS_COMMIT}`,
    );
    expect(rows).toEqual([{ n: 1, during: 'off' }]);
    // The pooled connection is handed back as it was: the next statement commits durably.
    expect(await setting()).toBe('on');
  });

  it('is kept in the plans of both shapes the hot statements use', async () => {
    const plans = await Promise.all(
      [
        `WITH updated AS (UPDATE asynchronous_commit_check SET n = n + 1 WHERE id = $1 RETURNING n) SELECT updated.n FROM updated CROSS JOIN ${ASYNCHRONOUS_COMMIT}`,
        `UPDATE asynchronous_commit_check SET n = n + 1 FROM ${ASYNCHRONOUS_COMMIT} WHERE id = $1`,
      ].map(async (text) =>
        (await client.query({ text: `EXPLAIN (VERBOSE, COSTS OFF) ${text}`, values: [1] })).rows.map((row) => row['QUERY PLAN']).join('\n'),
      ),
    );
    for (const plan of plans) expect(plan).toContain("set_config('synchronous_commit'::text, 'off'::text, true)");
  });
});
