import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { Worker } from 'bullmq';
import { readSpreadsheet } from '@docgen/bulk';
import type { Database } from '@docgen/db';
import { OutboxRelay, queueAssembly } from '@docgen/documents';
import { createLogger } from '@docgen/observability';
import { BULK_ASSEMBLY_QUEUE, FirstAttempts, bullPrefix, createBulkAssemblyQueue, createRedisConnection, type BulkAssemblyJob } from '@docgen/queue';
import { LocalFileStorage, documentFileKey } from '@docgen/storage';
import { createTestDatabase, eventually, seedOrganization, uniqueId, type TestDatabase } from '@docgen/testing';
import { startBulkAssemblyWorker, type BulkAssemblyDeps } from '../src/bulk-assembly';

/** The names in a ZIP's central directory. */
function zipEntryNames(zip: Buffer): string[] {
  const names: string[] = [];
  for (let at = zip.indexOf('PK\x01\x02'); at >= 0; at = zip.indexOf('PK\x01\x02', at + 46)) {
    names.push(zip.subarray(at + 46, at + 46 + zip.readUInt16LE(at + 28)).toString());
  }
  return names;
}

/** One entry of a ZIP, found through its central directory. */
function zipEntry(zip: Buffer, name: string): Buffer {
  for (let at = zip.indexOf('PK\x01\x02'); at >= 0; at = zip.indexOf('PK\x01\x02', at + 46)) {
    if (zip.subarray(at + 46, at + 46 + zip.readUInt16LE(at + 28)).toString() !== name) continue;
    const local = zip.readUInt32LE(at + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    return inflateRawSync(zip.subarray(start, start + zip.readUInt32LE(at + 20)));
  }
  throw new Error(`no ${name} in the ZIP`);
}

// Short: a worker's stalled check holds off every other one's for half of it.
const LOCK_MS = 2_000;

/** The bulk-assembly worker on real PostgreSQL, Redis and file storage. */
describe('bulk assembly', () => {
  let database: TestDatabase;
  let storageDir: string;
  let deps: BulkAssemblyDeps;
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefix = `test:${uniqueId()}:`;
  const queue = createBulkAssemblyQueue(redis, prefix);

  beforeAll(async () => {
    database = await createTestDatabase();
    storageDir = await mkdtemp(path.join(tmpdir(), 'docgen-bulk-assembly-'));
    const logger = createLogger('render-worker-test', 'silent');
    deps = {
      db: database.db,
      storage: new LocalFileStorage(storageDir),
      relay: new OutboxRelay(database.db, new FirstAttempts(redis, prefix), logger),
      logger,
    };
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    redis.disconnect();
    await database.drop();
    await rm(storageDir, { recursive: true, force: true });
  });

  /** A running bulk job whose rows (one a name, from row 2) are ready, their PDFs stored. */
  async function finishedBulkJob(fileName: string | null, names = ['Ada', 'Bob']) {
    const { db } = database;
    const { organizationId } = await seedOrganization(db);
    const template = await db.template.create({
      data: { organizationId, name: 't', format: 'docx', fileKey: `templates/${organizationId}.docx`, fileSize: 1, variables: [] },
    });
    const bulk = await db.bulkJob.create({
      data: { organizationId, templateId: template.id, outputFormat: 'pdf', status: 'running', totalRows: names.length, succeeded: names.length, fileName },
    });
    for (const [index, name] of names.entries()) {
      const rowNumber = index + 2;
      const doc = await db.document.create({
        data: {
          organizationId,
          templateId: template.id,
          bulkJobId: bulk.id,
          rowNumber,
          status: 'ready',
          files: ['pdf'],
          inputFormat: 'docx',
          outputFormat: 'pdf',
          inputJson: { name },
        },
      });
      await deps.storage.put(documentFileKey(doc, 'pdf'), Buffer.from(`%PDF of ${name}`));
    }
    return bulk;
  }

  const bulkJobFailed = (id: string) =>
    eventually(async () => (await database.db.bulkJob.findUniqueOrThrow({ where: { id } })).status === 'failed', 'the bulk job failed', 10_000);

  it("reads the rows' inputs only when a file_name pattern names the files", async () => {
    const selects: Record<string, boolean>[] = [];
    // The real database, its row reads noted.
    const db = new Proxy(database.db, {
      get: (target, property, receiver) => {
        const value: unknown = Reflect.get(target, property, receiver);
        if (property !== 'document') return value;
        const documents = value as Database['document'];
        return new Proxy(documents, {
          get: (model, name) =>
            name === 'findMany'
              ? (args: Parameters<Database['document']['findMany']>[0]) => {
                  selects.push(args!.select as Record<string, boolean>);
                  return model.findMany(args);
                }
              : Reflect.get(model, name),
        });
      },
    });
    const worker = startBulkAssemblyWorker(redis, prefix, LOCK_MS, { ...deps, db });
    try {
      for (const fileName of [null, '{name}']) {
        const bulk = await finishedBulkJob(fileName);
        const completed = once(worker, 'completed');
        await queueAssembly(queue, bulk.id);
        await completed;
        const { zipKey, status } = await database.db.bulkJob.findUniqueOrThrow({ where: { id: bulk.id } });
        expect(status).toBe('completed');
        const zip = await deps.storage.get(zipKey!);
        expect(zipEntryNames(zip)).toEqual(fileName ? ['Ada.pdf', 'Bob.pdf', 'errors.xlsx'] : ['row-0002.pdf', 'row-0003.pdf', 'errors.xlsx']);
      }
      expect(selects.map((select) => select.inputJson)).toEqual([false, true]);
    } finally {
      await worker.close();
    }
  });

  it("still delivers the other rows when a row's file is gone from storage or was purged by retention, naming those rows in errors.xlsx", async () => {
    const bulk = await finishedBulkJob(null, ['Ada', 'Bob', 'Cy']);
    const [lost, purged] = await database.db.document.findMany({ where: { bulkJobId: bulk.id }, orderBy: { rowNumber: 'asc' } });
    await deps.storage.delete(documentFileKey(lost!, 'pdf'));
    // What retention leaves of a row it purged before the ZIP was made.
    const purgedAt = new Date('2026-03-01T10:00:00.000Z');
    await deps.storage.delete(documentFileKey(purged!, 'pdf'));
    await database.db.document.update({ where: { id: purged!.id }, data: { files: [], inputJson: {}, purgedAt } });
    const worker = startBulkAssemblyWorker(redis, prefix, LOCK_MS, deps);
    try {
      const attempt = Promise.race([once(worker, 'completed'), once(worker, 'failed').then(([, error]) => Promise.reject(error as Error))]);
      await queueAssembly(queue, bulk.id);
      await attempt;
    } finally {
      await worker.close();
    }
    const { zipKey, status } = await database.db.bulkJob.findUniqueOrThrow({ where: { id: bulk.id } });
    expect(status).toBe('completed');
    const zip = await deps.storage.get(zipKey!);
    expect(zipEntryNames(zip)).toEqual(['row-0004.pdf', 'errors.xlsx']);
    expect((await readSpreadsheet(zipEntry(zip, 'errors.xlsx'), 'xlsx', 10)).rows.map((row) => row.cells)).toEqual([
      [2, 'Its PDF file is no longer stored; run this row again (in a new bulk job or as one document) to get it'],
      [
        3,
        'Its files were removed by the retention policy on 2026-03-01T10:00:00.000Z, before the ZIP was made; run this row again (in a new bulk job or as one document) to get them',
      ],
    ]);
  });

  it('does not complete a bulk job none of whose files storage can find: storage out of reach, not rows deleted, is retried and then fails', async () => {
    const bulk = await finishedBulkJob(null, ['Ada', 'Bob']);
    for (const row of await database.db.document.findMany({ where: { bulkJobId: bulk.id } })) await deps.storage.delete(documentFileKey(row, 'pdf'));
    const worker = startBulkAssemblyWorker(redis, prefix, LOCK_MS, deps);
    try {
      const failed = once(worker, 'failed');
      await queue.add('assemble', { bulkJobId: bulk.id }, { jobId: bulk.id, attempts: 1 });
      const [, error] = (await failed) as [unknown, Error];
      expect(error.message).toMatch(/^None of the 2 row files could be read from storage/);
      await bulkJobFailed(bulk.id);
    } finally {
      await worker.close();
    }
  });

  it('fails the bulk job, with its bulk.completed event, when the last attempt to assemble its ZIP fails', async () => {
    const bulk = await finishedBulkJob(null);
    const [unreadable] = await database.db.document.findMany({ where: { bulkJobId: bulk.id } });
    // A file storage cannot read (a folder where the PDF should be): the ZIP breaks off.
    const file = path.join(storageDir, documentFileKey(unreadable!, 'pdf'));
    await rm(file);
    await mkdir(file);
    const worker = startBulkAssemblyWorker(redis, prefix, LOCK_MS, deps);
    try {
      const failed = once(worker, 'failed');
      await queue.add('assemble', { bulkJobId: bulk.id }, { jobId: bulk.id, attempts: 1 });
      await failed;
      await bulkJobFailed(bulk.id);
    } finally {
      await worker.close();
    }
    expect(await database.db.outboxEvent.count({ where: { subjectId: bulk.id, type: 'bulk.completed' } })).toBe(1);
  });

  it('fails the bulk job, with its bulk.completed event, when BullMQ fails the assembly itself after its worker died twice', async () => {
    const bulk = await finishedBulkJob(null);
    await queueAssembly(queue, bulk.id);
    // A worker that takes the job and dies (never renews its lock), twice: BullMQ then fails
    // the job when it is next taken, without running the processor.
    const dying = new Worker<BulkAssemblyJob>(BULK_ASSEMBLY_QUEUE, null, {
      connection: redis,
      prefix: bullPrefix(prefix),
      lockDuration: 300,
      stalledInterval: 100,
    });
    try {
      for (let death = 1; death <= 2; death += 1) {
        expect((await dying.getNextJob(`dying-${death}`, { block: false }))?.id).toBe(bulk.id);
        const stalled = once(dying, 'stalled');
        void dying.startStalledCheckTimer();
        await stalled;
      }
    } finally {
      await dying.close();
    }
    expect((await queue.getJob(bulk.id))!.deferredFailure).toBe('job stalled more than allowable limit');

    const worker = startBulkAssemblyWorker(redis, prefix, LOCK_MS, deps);
    try {
      const [, error] = (await once(worker, 'failed')) as [unknown, Error];
      expect(error.name).toBe('UnrecoverableError');
      await bulkJobFailed(bulk.id);
    } finally {
      await worker.close();
    }
    const event = await database.db.outboxEvent.findFirstOrThrow({ where: { subjectId: bulk.id } });
    expect(event).toMatchObject({ type: 'bulk.completed', payload: expect.objectContaining({ data: expect.objectContaining({ status: 'failed' }) }) });
  });
});
