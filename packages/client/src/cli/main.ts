#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { createClient } from '../client.js';
import { DocgenError, DocumentFailedError } from '../errors.js';
import { bulk, generate, getDocument, listTemplates, type Options, type Outcome } from './commands.js';
import { createProgress } from './progress.js';
import { USAGE, UsageError } from './usage.js';

const fail = (message: string) => process.stderr.write(`docgen-client: ${message}\n`);

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        template: { type: 'string' },
        data: { type: 'string' },
        format: { type: 'string' },
        out: { type: 'string' },
        rows: { type: 'string' },
        limit: { type: 'string' },
        cursor: { type: 'string' },
        'idempotency-key': { type: 'string' },
        timeout: { type: 'string' },
        uat: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help || positionals.length === 0) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const apiKey = process.env.DOCGEN_API_KEY;
  if (!apiKey) throw new UsageError('Set DOCGEN_API_KEY to your API key (svc_...)');
  const progress = createProgress();
  const client = createClient({
    baseUrl: process.env.DOCGEN_URL || 'http://127.0.0.1:8080',
    apiKey,
    retry: {
      onRetry: ({ status, delayMs, attempt }) =>
        progress.note(
          `${status === 429 ? 'rate limited' : status === 503 ? 'service unavailable' : 'connection failed'}; retry ${attempt} in ${delayMs / 1000} s`,
        ),
    },
  });
  const { help: _help, ...options } = values as Options & { help?: boolean };
  const [command, sub, ...rest] = positionals;
  let outcome: Outcome;
  if (command === 'generate') outcome = await generate(client, options, progress);
  else if (command === 'bulk') outcome = await bulk(client, options, progress);
  else if (command === 'templates' && sub === 'list') outcome = await listTemplates(client, options);
  else if (command === 'documents' && sub === 'get') outcome = await getDocument(client, rest[0], options);
  else throw new UsageError(`Unknown command "${positionals.join(' ')}"`);
  process.stdout.write(`${JSON.stringify(outcome.result)}\n`);
  return outcome.exitCode;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      fail(`${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (error instanceof DocumentFailedError) {
      process.stdout.write(`${JSON.stringify(error.document)}\n`);
      fail(error.message);
      process.exit(1);
    }
    if (error instanceof DocgenError) {
      const errors =
        'errors' in error && Array.isArray(error.errors)
          ? error.errors.map((e: { path: string; message: string }) => `\n  ${e.path}: ${e.message}`).join('')
          : '';
      fail(`${error.message}${errors}`);
      process.exit(1);
    }
    fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
