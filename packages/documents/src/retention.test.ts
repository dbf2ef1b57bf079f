import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@docgen/observability';
import { LocalFileStorage, bulkZipKey, documentFileKey } from '@docgen/storage';
import { createTestDatabase, seedOrganization, type TestDatabase } from '@docgen/testing';
import { deleteSupersededFiles, purgeExpired } from './retention';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('retention', () => {
  let database: TestDatabase;
  let root: string;
  let storage: LocalFileStorage;
  let organizationId: string;
  let templateId: string;
  const logger = createLogger('retention-test', 'silent');

  beforeAll(async () => {
    database = await createTestDatabase();
    root = await mkdtemp(path.join(tmpdir(), 'retention-'));
    storage = new LocalFileStorage(root);
    ({ organizationId } = await seedOrganization(database.db));
    const template = await database.db.template.create({
      data: { organizationId, name: 'letter', format: 'docx', fileKey: 'templates/letter.docx', fileSize: 10, variables: [] },
    });
    templateId = template.id;
  });
  afterAll(async () => {
    await database.drop();
    await rm(root, { recursive: true, force: true });
  });

  /** A finished document created `ageDays` ago, with its files stored. */
  async function document(ageDays: number, status = 'ready', generation = 1) {
    const createdAt = new Date(Date.now() - ageDays * DAY_MS);
    const doc = await database.db.document.create({
      data: {
        organizationId,
        templateId,
        inputFormat: 'docx',
        outputFormat: 'both',
        inputJson: { name: 'Ada' },
        status,
        generation,
        createdAt,
        files: status === 'ready' ? ['docx', 'pdf'] : [],
      },
    });
    if (status === 'ready') for (const format of ['pdf', 'docx'] as const) await storage.put(documentFileKey(doc, format), Buffer.from(format));
    return doc;
  }

  it('purges an expired document and bulk ZIP, keeps a recent one and one still rendering', async () => {
    const old = await document(31);
    const recent = await document(29);
    const rendering = await document(40, 'rendering');
    const bulk = await database.db.bulkJob.create({
      data: {
        organizationId,
        templateId,
        outputFormat: 'pdf',
        status: 'completed',
        totalRows: 1,
        createdAt: new Date(Date.now() - 31 * DAY_MS),
        zipKey: bulkZipKey(organizationId, 'b1'),
      },
    });
    await storage.put(bulkZipKey(organizationId, 'b1'), Buffer.from('zip'));

    const purged = await purgeExpired({ db: database.db, storage, logger }, { retentionDays: 30 });
    expect(purged).toEqual({ documents: [old.id], bulkJobs: [bulk.id] });

    const after = await database.db.document.findUniqueOrThrow({ where: { id: old.id } });
    expect(after).toMatchObject({ status: 'ready', files: [], inputJson: {} });
    expect(after.purgedAt).toBeInstanceOf(Date);
    expect(await storage.list(`documents/${organizationId}/${old.id}/`)).toEqual([]);
    expect(await storage.list(`documents/${organizationId}/${recent.id}/`)).toHaveLength(2);
    expect(await database.db.document.findUniqueOrThrow({ where: { id: recent.id } })).toMatchObject({ purgedAt: null, inputJson: { name: 'Ada' } });
    expect(await database.db.document.findUniqueOrThrow({ where: { id: rendering.id } })).toMatchObject({ purgedAt: null, status: 'rendering' });
    expect(await database.db.bulkJob.findUniqueOrThrow({ where: { id: bulk.id } })).toMatchObject({ zipKey: null, status: 'completed' });
    expect(await readdir(path.join(root, 'bulk', organizationId))).toEqual([]);

    // A later clock: the recent one's turn. Already purged rows are not purged again.
    const later = await purgeExpired({ db: database.db, storage, logger }, { retentionDays: 30, now: new Date(Date.now() + 2 * DAY_MS) });
    expect(later).toEqual({ documents: [recent.id], bulkJobs: [] });
    expect(await purgeExpired({ db: database.db, storage, logger }, { retentionDays: 0, now: new Date(Date.now() + 999 * DAY_MS) })).toEqual({
      documents: [],
      bulkJobs: [],
    });
  });

  it('lets several purgers run at once, each row purged by exactly one of them', async () => {
    const docs = await Promise.all(Array.from({ length: 30 }, () => document(100, 'failed')));
    const purgers = await Promise.all(
      Array.from({ length: 4 }, () => purgeExpired({ db: database.db, storage, logger }, { retentionDays: 90, batchSize: 3, maxBatches: 100 })),
    );
    const ids = purgers.flatMap((purged) => purged.documents);
    expect(new Set(ids).size).toBe(ids.length); // nobody purged a row another one had
    expect([...ids].sort()).toEqual(docs.map((doc) => doc.id).sort());
    expect(purgers.filter((purged) => purged.documents.length > 0).length).toBeGreaterThan(1); // they did run side by side
    expect(await database.db.document.count({ where: { id: { in: ids }, purgedAt: null } })).toBe(0);
  });

  it('deletes the files of superseded generations, and only those', async () => {
    const doc = await document(0, 'ready', 3);
    for (const generation of [1, 2]) await storage.put(documentFileKey({ ...doc, generation }, 'pdf'), Buffer.from('old'));
    expect(await deleteSupersededFiles(storage, doc)).toBe(2);
    expect(await storage.list(`documents/${organizationId}/${doc.id}/`)).toEqual([documentFileKey(doc, 'docx'), documentFileKey(doc, 'pdf')]);
  });
});
