import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Every write to the database belongs to a domain package (docs/architecture.md, "Domain
 * rooms"): a route, a job handler or a CLI command calls one of their functions instead of
 * writing itself. This test reads the source of every app and package and fails on a Prisma
 * write or a SQL write anywhere else.
 */
const ROOT = path.resolve(__dirname, '../../..');

const ALLOWED: { pattern: RegExp; why: string }[] = [
  { pattern: /^packages\/documents\//, why: 'documents, bulk jobs, outbox events' },
  { pattern: /^packages\/access\//, why: 'organisations, API keys, people, sessions, signing certificates' },
  { pattern: /^packages\/webhooks\//, why: 'webhook endpoints and their delivery log' },
  { pattern: /^packages\/templates\//, why: 'templates, their versions and preview state' },
  { pattern: /^packages\/db\/src\/migrate/, why: 'the migration runner' },
  { pattern: /^packages\/testing\//, why: 'test support: seeds a database per test file' },
];

const MODELS =
  'organization|apiKey|template|templateVersion|document|outboxEvent|webhookEndpoint|webhookDelivery|bulkJob|user|membership|session|signingCertificate';
const PRISMA_WRITE = new RegExp(
  `\\b(?:${MODELS})\\s*\\.\\s*(?:create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany)\\s*\\(`,
  'g',
);
const RAW_WRITE = /\$executeRaw(?:Unsafe)?\b/g;
const SQL_WRITE = /\b(?:INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+"?\w+"?\s+SET|TRUNCATE\s+\w)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'dist', 'generated', 'test'].includes(entry.name) ? [] : sourceFiles(full);
    return /\.(ts|tsx|cts|mts)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** Comments name statements to explain them; only code counts. */
const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

function writesOutsideDomains(allowed = ALLOWED, root = ROOT): string[] {
  const files = ['apps', 'packages'].flatMap((top) =>
    readdirSync(path.join(root, top), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => {
        const src = path.join(root, top, entry.name, 'src');
        try {
          return sourceFiles(src);
        } catch {
          return [];
        }
      }),
  );
  return files.flatMap((file) => {
    const relative = path.relative(root, file).split(path.sep).join('/');
    if (allowed.some(({ pattern }) => pattern.test(relative))) return [];
    const code = withoutComments(readFileSync(file, 'utf8'));
    return [PRISMA_WRITE, RAW_WRITE, SQL_WRITE].flatMap((pattern) =>
      [...code.matchAll(pattern)].map((match) => `${relative}: ${match[0].replace(/\s+/g, ' ')}`),
    );
  });
}

describe('database writes stay in the domain packages', () => {
  it('finds no Prisma or SQL write in an app or a package other than documents, access, webhooks, templates, migrations and test support', () => {
    expect(writesOutsideDomains()).toEqual([]);
  });

  it('reads the domains’ own writes when nothing is allowed (the scan reaches the code)', () => {
    const everywhere = writesOutsideDomains([]);
    for (const room of ['packages/documents/', 'packages/access/', 'packages/webhooks/', 'packages/templates/'])
      expect(everywhere.some((hit) => hit.startsWith(room))).toBe(true);
  });

  it('would catch one: a Prisma write, a raw write and a SQL statement', () => {
    const code = `db.session\n  .deleteMany({ where: {} }); tx.$executeRaw\`x\`; const q = \`UPDATE documents SET status = 'x'\`; storage.delete(key);`;
    const found = [PRISMA_WRITE, RAW_WRITE, SQL_WRITE].flatMap((pattern) => [...withoutComments(code).matchAll(pattern)].map((match) => match[0]));
    expect(found).toHaveLength(3);
  });
});
