import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';

/** Where the SQL migrations live, from this file in src/ or dist/ alike. */
export const migrationsDir = path.resolve(__dirname, '../../../prisma/migrations');

/** Any constant shared by every replica: "docgen migrations" as a 64-bit number. */
const ADVISORY_LOCK_KEY = '4242020611230001';

export interface MigrationResult {
  applied: string[];
  alreadyApplied: string[];
}

/** Creates the database named in the URL when it does not exist yet (first start, tests). */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!name) throw new Error('DATABASE_URL names no database');
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    try {
      await admin.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    } catch (error) {
      // Another replica created it between our check and our CREATE.
      if ((error as { code?: string }).code !== '42P04') throw error;
    }
    return true;
  } finally {
    await admin.end();
  }
}

/**
 * Applies pending migrations in name order, each in its own transaction, under a
 * session advisory lock so replicas starting together apply each migration once.
 * Bookkeeping uses Prisma's `_prisma_migrations` table and checksum (SHA-256 of the file),
 * so `prisma migrate deploy` recognises what this runner applied and vice versa.
 */
export async function applyMigrations(databaseUrl: string, dir: string = migrationsDir): Promise<MigrationResult> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      'SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const done = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    const result: MigrationResult = { applied: [], alreadyApplied: [] };

    for (const name of await listMigrations(dir)) {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const appliedChecksum = done.get(name);
      if (appliedChecksum !== undefined) {
        if (appliedChecksum !== checksum) {
          throw new Error(`Migration ${name} was changed after it was applied; add a new migration instead`);
        }
        result.alreadyApplied.push(name);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), now(), 1)`,
          [randomUUID(), checksum, name],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${name} failed: ${(error as Error).message}`, { cause: error });
      }
      result.applied.push(name);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

async function listMigrations(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}
