import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { applyMigrations, ensureDatabase } from './migrate';

const SERVER = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';

async function withDatabase(run: (url: string) => Promise<void>) {
  const name = `docgen_migrate_${Math.random().toString(36).slice(2, 10)}`;
  const url = `${SERVER}/${name}`;
  try {
    await run(url);
  } finally {
    const admin = new Client({ connectionString: `${SERVER}/postgres` });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('migration runner', () => {
  it('creates the database, then applies each migration once even when replicas race', () =>
    withDatabase(async (url) => {
      expect(await ensureDatabase(url)).toBe(true);
      expect(await ensureDatabase(url)).toBe(false);

      const results = await Promise.all([applyMigrations(url), applyMigrations(url), applyMigrations(url)]);
      const appliedCounts = results.map((r) => r.applied.length).sort();
      expect(appliedCounts[2]).toBeGreaterThan(0);
      expect(appliedCounts.slice(0, 2)).toEqual([0, 0]);

      const rows = await query<{ migration_name: string; checksum: string; finished_at: Date; applied_steps_count: number }>(
        url,
        'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations"',
      );
      expect(rows.map((r) => r.migration_name)).toEqual(results.find((r) => r.applied.length)!.applied);
      for (const row of rows) {
        expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
        expect(row.finished_at).toBeInstanceOf(Date);
      }
      const tables = await query<{ tablename: string }>(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
      expect(tables.map((t) => t.tablename)).toEqual(expect.arrayContaining(['organizations', 'api_keys']));
    }));

  it('rolls back a failing migration and refuses one edited after it was applied', () =>
    withDatabase(async (url) => {
      await ensureDatabase(url);
      const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
      await mkdir(path.join(dir, '001_first'));
      await writeFile(path.join(dir, '001_first', 'migration.sql'), 'CREATE TABLE first (id int);');
      await mkdir(path.join(dir, '002_broken'));
      await writeFile(path.join(dir, '002_broken', 'migration.sql'), 'CREATE TABLE second (id int); SELECT no_such_function();');

      await expect(applyMigrations(url, dir)).rejects.toThrow(/Migration 002_broken failed: .*no_such_function/);
      const tables = await query<{ tablename: string }>(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
      expect(tables.map((t) => t.tablename).sort()).toEqual(['_prisma_migrations', 'first']);

      await writeFile(path.join(dir, '002_broken', 'migration.sql'), 'CREATE TABLE second (id int);');
      expect((await applyMigrations(url, dir)).applied).toEqual(['002_broken']);

      await writeFile(path.join(dir, '001_first', 'migration.sql'), 'CREATE TABLE first (id bigint);');
      await expect(applyMigrations(url, dir)).rejects.toThrow('Migration 001_first was changed after it was applied');
    }));
});
