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
