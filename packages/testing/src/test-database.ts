import { Client } from 'pg';
import { applyMigrations, createPrismaClient, ensureDatabase, type Database } from '@docgen/db';
import { uniqueId } from './paths';

export interface TestDatabase {
  url: string;
  db: Database;
  drop: () => Promise<void>;
}

const SERVER_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';

/** A fresh, migrated database of its own for one test file, dropped afterwards. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `docgen_test_${uniqueId()}`;
  const url = `${SERVER_URL}/${name}`;
  await ensureDatabase(url);
  await applyMigrations(url);
  const db = createPrismaClient(url, { poolSize: 4 });
  return {
    url,
    db,
    drop: async () => {
      await db.$disconnect();
      const admin = new Client({ connectionString: `${SERVER_URL}/postgres` });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/**
 * The same database, with its raw statements (`db.sql`) passed through `intercept` first: a
 * fault to inject (a statement that fails, or never answers) is returned as its promise, or
 * the statement is run (`run`) and something staged around it; undefined lets the statement
 * run. Prisma's own queries are untouched.
 */
export function interceptSql(
  db: Database,
  intercept: (statement: Parameters<Database['sql']['query']>[0], run: () => Promise<unknown[]>) => Promise<unknown[]> | undefined,
): Database {
  const sql: Database['sql'] = {
    query: <T>(statement: Parameters<Database['sql']['query']>[0], values?: unknown[]) =>
      (intercept(statement, () => db.sql.query(statement, values)) as Promise<T[]> | undefined) ?? db.sql.query<T>(statement, values),
  };
  return new Proxy(db, { get: (target, property, receiver) => (property === 'sql' ? sql : Reflect.get(target, property, receiver)) });
}
