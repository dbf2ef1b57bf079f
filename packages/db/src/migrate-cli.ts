// `npm run -s migrate`: create the database if needed, apply pending migrations, exit.
// Safe to run from several replicas or a Kubernetes Job at once (advisory lock).
import { z } from 'zod';
import { commonEnv, loadConfig } from '@docgen/config';
import { applyMigrations, ensureDatabase } from './migrate';

async function main(): Promise<void> {
  const { DATABASE_URL } = loadConfig(z.object({ DATABASE_URL: commonEnv.DATABASE_URL }));
  const created = await ensureDatabase(DATABASE_URL);
  const result = await applyMigrations(DATABASE_URL);
  process.stdout.write(`${JSON.stringify({ database_created: created, applied: result.applied, already_applied: result.alreadyApplied.length })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
