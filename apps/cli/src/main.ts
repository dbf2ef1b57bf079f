import { parseArgs } from 'node:util';
import { z } from 'zod';
import { commonEnv, ConfigError, loadConfig } from '@docgen/config';
import { createPrismaClient, isDatabaseUnavailable, type Database } from '@docgen/db';
import { checkRendering } from './commands/check-rendering';
import { seedDemo } from './commands/demo';
import { createKey, listKeys, revokeKey } from './commands/keys';
import { createOrganization, listOrganizations, setRateLimit } from './commands/orgs';
import { rewrapSecrets } from './commands/secrets';
import { createUser } from './commands/users';
import { CliError, USAGE, usageError } from './errors';
import type { Options } from './options';

const warn = (message: string) => process.stderr.write(`${message}\n`);

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        org: { type: 'string' },
        'rate-limit': { type: 'string' },
        'per-minute': { type: 'string' },
        expires: { type: 'string' },
        'key-file': { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string' },
        threshold: { type: 'string' },
        out: { type: 'string' },
        update: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw usageError((error as Error).message);
  }
}

async function run(db: Database, command: string, positionals: string[], options: Options): Promise<unknown> {
  switch (command) {
    case 'orgs create':
      return createOrganization(db, options);
    case 'orgs list':
      return listOrganizations(db);
    case 'orgs set-rate-limit':
      return setRateLimit(db, options);
    case 'keys create':
      return createKey(db, options, warn);
    case 'keys list':
      return listKeys(db, options);
    case 'keys revoke':
      return revokeKey(db, positionals[0]);
    case 'users create':
      return createUser(db, options, warn);
    case 'secrets rewrap':
      return rewrapSecrets(db);
    case 'demo seed':
      return seedDemo(db, options);
    default:
      throw usageError(command ? `Unknown command "${command}"` : 'No command given');
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parse(process.argv.slice(2));
  if (values.help) {
    warn(USAGE);
    return 0;
  }
  const [group = '', action = '', ...rest] = positionals;
  const { DATABASE_URL } = loadConfig(z.object({ DATABASE_URL: commonEnv.DATABASE_URL }));
  const db = createPrismaClient(DATABASE_URL, { poolSize: 1 });
  try {
    const { help: _help, update, ...options } = values;
    const command = `${group} ${action}`.trim();
    if (command === 'templates check-rendering') {
      return await checkRendering(db, options, { update }, (line) => process.stdout.write(`${line}\n`), warn);
    }
    if (update !== undefined) throw usageError('--update belongs to templates check-rendering');
    const result = await run(db, command, rest, options);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await db.$disconnect();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof CliError || error instanceof ConfigError) {
      warn(`docgen: ${error.message}`);
      process.exit(error instanceof CliError ? error.exitCode : 1);
    }
    if (isDatabaseUnavailable(error)) {
      warn('docgen: PostgreSQL is unreachable at DATABASE_URL; is it running?');
    } else if ((error as { code?: string }).code === '42P01' || /does not exist/.test(String((error as Error).message))) {
      warn('docgen: the database is not migrated; run `npm run -s migrate` first.');
    } else {
      warn(`docgen: ${error instanceof Error ? error.message : String(error)}`);
    }
    process.exit(1);
  },
);
