import pg from 'pg';
import { GroupedStatement } from './grouped-statement';

const url = process.env.TEST_POSTGRES_URL ? `${process.env.TEST_POSTGRES_URL}/postgres` : 'postgresql://postgres@127.0.0.1:5432/postgres';

/** A real PostgreSQL table and one grouped INSERT of many rows, as the gateway's document insert runs. */
describe('GroupedStatement', () => {
  let pool: pg.Pool;
  const groups: number[][] = [];
  const insert = async (ids: number[]) => {
    groups.push(ids);
    const { rows } = await pool.query<{ id: number; doubled: number }>(
      `WITH inserted AS (INSERT INTO grouped_statement_check (id) SELECT * FROM unnest($1::int[]) RETURNING id)
       SELECT r.id, r.id * 2 AS doubled FROM unnest($1::int[]) WITH ORDINALITY AS r(id, ord) JOIN inserted USING (id) ORDER BY r.ord`,
      [ids],
    );
    return rows.map((row) => row.doubled);
  };

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: url, max: 4 });
    await pool.query('DROP TABLE IF EXISTS grouped_statement_check');
    await pool.query('CREATE TABLE grouped_statement_check (id int PRIMARY KEY)');
  });
  beforeEach(async () => {
    groups.length = 0;
    await pool.query('TRUNCATE grouped_statement_check');
  });
  afterAll(async () => {
    await pool.query('DROP TABLE IF EXISTS grouped_statement_check');
    await pool.end();
  });

  it('sends a lone call at once and gathers the calls made while groups are in flight', async () => {
    expect(await new GroupedStatement(insert, { maxInFlight: 2, maxItems: 64 }).call(1)).toBe(2);
    expect(groups).toEqual([[1]]);

    groups.length = 0;
    const statement = new GroupedStatement(insert, { maxInFlight: 2, maxItems: 64 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => statement.call(100 + i)));
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => 2 * (100 + i)));
    // Two go alone (nothing was in flight), the other 18 wait for one of them and go as one.
    expect(groups.map((group) => group.length)).toEqual([1, 1, 18]);
    expect((await pool.query('SELECT count(*)::int AS n FROM grouped_statement_check')).rows[0].n).toBe(21);
  });

  it('keeps groups to maxItems', async () => {
    const statement = new GroupedStatement(insert, { maxInFlight: 1, maxItems: 5 });
    await Promise.all(Array.from({ length: 12 }, (_, i) => statement.call(i)));
    expect(groups.map((group) => group.length)).toEqual([1, 5, 5, 1]);
  });

  it("splits a refused group in halves down to the call refused, so one call's unique violation fails only that call", async () => {
    await pool.query('INSERT INTO grouped_statement_check VALUES (7)');
    const statement = new GroupedStatement(insert, { maxInFlight: 1 });
    const outcomes = await Promise.allSettled([5, 6, 7, 8].map((id) => statement.call(id)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
    expect(groups).toEqual([[5], [6, 7, 8], [6, 7], [6], [7], [8]]);
    const { rows } = await pool.query('SELECT id FROM grouped_statement_check ORDER BY id');
    expect(rows.map((row) => row.id)).toEqual([5, 6, 7, 8]);
  });

  it('fails the calls still waiting after maxWaitMs with ETIMEDOUT while a statement is stuck behind a lock, and inserts none of them later', async () => {
    const locker = await pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE grouped_statement_check IN ACCESS EXCLUSIVE MODE');
      const statement = new GroupedStatement(insert, { maxInFlight: 1, maxWaitMs: 300 });
      const stuck = statement.call(1);
      const waiting = await Promise.allSettled([2, 3, 4].map((id) => statement.call(id)));
      expect(waiting.map((outcome) => (outcome as PromiseRejectedResult).reason?.code)).toEqual(['ETIMEDOUT', 'ETIMEDOUT', 'ETIMEDOUT']);
      await locker.query('COMMIT');
      expect(await stuck).toBe(2);
      expect(await statement.call(5)).toBe(10);
    } finally {
      locker.release();
    }
    expect(groups).toEqual([[1], [5]]);
    const { rows } = await pool.query('SELECT id FROM grouped_statement_check ORDER BY id');
    expect(rows.map((row) => row.id)).toEqual([1, 5]);
  });

  it('fails the whole group, running nothing again, when the connection is lost', async () => {
    const lost = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    let runs = 0;
    const statement = new GroupedStatement<number, number>(
      async (ids) => {
        runs += 1;
        if (ids.length > 1) throw lost;
        return ids;
      },
      { maxInFlight: 1 },
    );
    const outcomes = await Promise.allSettled([1, 2, 3].map((id) => statement.call(id)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(runs).toBe(2);
  });
});
