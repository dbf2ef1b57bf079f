import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyMigrations, createPrismaClient, ensureDatabase, migrationsDir, type Database } from '@docgen/db';
import { uniqueId } from '@docgen/testing';

const SERVER = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const VERSIONS_MIGRATION = '20261126100000_template_versions';

/**
 * A database as it was before versions existed, with templates in it, then migrated:
 * each template becomes version 1, published, with its own settings, and nothing of the
 * template changes (API.md §12, issue 32).
 */
describe('the template_versions migration on a database with templates', () => {
  const name = `docgen_test_${uniqueId()}`;
  const url = `${SERVER}/${name}`;
  let db: Database;
  let before: Record<string, unknown>[];

  beforeAll(async () => {
    const earlier = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    for (const entry of (await readdir(migrationsDir)).filter((entry) => entry < VERSIONS_MIGRATION)) {
      await cp(path.join(migrationsDir, entry), path.join(earlier, entry), { recursive: true });
    }
    await ensureDatabase(url);
    await applyMigrations(url, earlier);
    await rm(earlier, { recursive: true });
    db = createPrismaClient(url, { poolSize: 2 });
    await db.$executeRaw`INSERT INTO organizations (id, name) VALUES ('00000000-0000-4000-8000-000000000001', 'Acme')`;
    await db.$executeRaw`
      INSERT INTO templates (id, organization_id, name, format, is_uat, locale, variables, corrected_tokens, file_key, file_size,
                             html_file_key, preview_status, preview_error, created_at, updated_at)
      VALUES ('00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-000000000001', 'Invoice', 'docx', false, 'de-DE',
              '[{"name":"due","type":"date","required":false,"format":"DD.MM.YYYY"}]', '[{"from":"client name","to":"client_name"}]',
              'templates/o/a1.docx', 1234, NULL, 'ready', NULL, '2026-01-02T03:04:05.678Z', '2026-02-03T04:05:06.789Z'),
             ('00000000-0000-4000-8000-0000000000a2', '00000000-0000-4000-8000-000000000001', 'Letter', 'html', true, 'en-US',
              '[{"name":"items","type":"list","required":true,"fields":["price"],"field_types":{"price":"number"}}]', '[]',
              'templates/o/a2.docx', 99, 'templates/o/a2.html', 'failed', 'no fonts', '2026-03-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z')`;
    before = await db.$queryRaw`SELECT * FROM templates ORDER BY name`;
    await applyMigrations(url);
  });

  afterAll(async () => {
    await db.$disconnect();
    const admin = createPrismaClient(`${SERVER}/postgres`, { poolSize: 1 });
    await admin.$executeRawUnsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.$disconnect();
  });

  it('keeps every column of every template as it was, and adds version 1 with no draft', async () => {
    const after = await db.$queryRaw<Record<string, unknown>[]>`SELECT * FROM templates ORDER BY name`;
    const added = [
      'version',
      'draft_version',
      'promoted_from_template_id',
      'promoted_from_version',
      'files_purge_started_at',
      'files_purged_at' /* a later migration's, null */,
    ];
    expect(after.map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !added.includes(column))))).toEqual(before);
    expect(after.map((row) => [row.version, row.draft_version, row.promoted_from_template_id, row.files_purged_at])).toEqual([
      [1, null, null, null],
      [1, null, null, null],
    ]);
  });

  it('makes each template version 1, published, with its file, settings and preview', async () => {
    const versions = await db.templateVersion.findMany({ orderBy: { fileKey: 'asc' } });
    expect(versions).toEqual([
      expect.objectContaining({
        templateId: '00000000-0000-4000-8000-0000000000a1',
        version: 1,
        status: 'published',
        variables: [{ name: 'due', type: 'date', required: false, format: 'DD.MM.YYYY' }],
        correctedTokens: [{ from: 'client name', to: 'client_name' }],
        fileKey: 'templates/o/a1.docx',
        fileSize: 1234,
        fileSha256: null,
        htmlFileKey: null,
        previewStatus: 'ready',
        createdAt: new Date('2026-01-02T03:04:05.678Z'),
        publishedAt: new Date('2026-01-02T03:04:05.678Z'),
        createdBy: null,
        publishedBy: null,
      }),
      expect.objectContaining({
        templateId: '00000000-0000-4000-8000-0000000000a2',
        version: 1,
        status: 'published',
        fileKey: 'templates/o/a2.docx',
        htmlFileKey: 'templates/o/a2.html',
        previewStatus: 'failed',
        previewError: 'no fonts',
      }),
    ]);
  });

  it('allows one published version per template', async () => {
    await expect(
      db.$executeRaw`INSERT INTO template_versions (template_id, version, status, file_key, file_size)
                     VALUES ('00000000-0000-4000-8000-0000000000a1', 2, 'published', 'k', 1)`,
    ).rejects.toThrow(/template_versions_one_published/);
  });
});
