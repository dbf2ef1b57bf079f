import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRedisConnection, createTemplatePreviewQueue, previewJobId } from '@docgen/queue';
import type { Prisma } from '@docgen/db';
import { LocalFileStorage } from '@docgen/storage';
import { createTestDatabase, eventually, seedOrganization, type TestDatabase } from '@docgen/testing';
import { lockTemplate, publish } from './versions/publish-transition';
import { markPreview, requestPreview, templatePreview, type PreviewStatus } from './previews';

/** A stored preview's state against a render worker settling it meanwhile, on the real PostgreSQL, Redis and BullMQ. */
describe('template previews', () => {
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefix = `test:${randomUUID()}:`;
  const previews = createTemplatePreviewQueue(redis, prefix);
  let database: TestDatabase;
  let storageRoot: string;
  let organizationId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    storageRoot = await mkdtemp(path.join(tmpdir(), 'previews-'));
    ({ organizationId } = await seedOrganization(database.db));
  });
  afterAll(async () => {
    await previews.obliterate({ force: true });
    await previews.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await rm(storageRoot, { recursive: true, force: true });
    await database.drop();
  });

  /** A published version 1 whose preview (and the template's copy of it) is `status`. */
  async function templateWithPreview(status: PreviewStatus | null) {
    const fileKey = `templates/${organizationId}/${randomUUID()}.docx`;
    const template = await database.db.template.create({
      data: { organizationId, name: 't', format: 'docx', fileKey, fileSize: 1, previewStatus: status },
    });
    await database.db.templateVersion.create({
      data: { templateId: template.id, version: 1, status: 'published', fileKey, fileSize: 1, previewStatus: status },
    });
    return template;
  }
  const statuses = async (templateId: string) => ({
    version: (await database.db.templateVersion.findUniqueOrThrow({ where: { templateId_version: { templateId, version: 1 } } })).previewStatus,
    template: (await database.db.template.findUniqueOrThrow({ where: { id: templateId } })).previewStatus,
  });
  /** How many sessions wait for a lock the transaction `tx` holds. */
  const blockedBy = async (tx: Prisma.TransactionClient) => {
    const [{ pid }] = (await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`) as [{ pid: number }];
    return async () =>
      (await database.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE ${pid}::int = ANY(pg_blocking_pids(pid))`)[0]!.n;
  };
  const job = (templateId: string) => previews.getJob(previewJobId({ templateId, version: 1 }));

  it('leaves a preview a worker made ready after it was read, and queues nothing', async () => {
    const template = await templateWithPreview('pending');
    // The worker finishes between the page's read (pending) and its request: its job is gone (removeOnComplete).
    expect(await markPreview(database.db, template.id, 1, 'ready', null)).toBe(true);
    await requestPreview({ db: database.db, previews }, template.id, 1, 'pending');
    expect(await statuses(template.id)).toEqual({ version: 'ready', template: 'ready' });
    expect(await job(template.id)).toBeUndefined();
  });

  it('marks a preview never asked for pending and queues it once, however often it is read', async () => {
    const template = await templateWithPreview(null);
    const storage = new LocalFileStorage(storageRoot);
    expect(await templatePreview({ db: database.db, storage, previews }, template)).toEqual({ ready: false });
    const pending = await database.db.template.findUniqueOrThrow({ where: { id: template.id } });
    expect(await templatePreview({ db: database.db, storage, previews }, pending)).toEqual({ ready: false });
    expect(await statuses(template.id)).toEqual({ version: 'pending', template: 'pending' });
    expect(await (await job(template.id))?.getState()).toBe('waiting');
    expect(await previews.getWaitingCount()).toBe(1);
    await previews.drain();
  });

  it('queues again a ready preview whose file is gone from storage', async () => {
    const template = await templateWithPreview('ready');
    expect(await templatePreview({ db: database.db, storage: new LocalFileStorage(storageRoot), previews }, template)).toEqual({ ready: false });
    expect(await statuses(template.id)).toEqual({ version: 'pending', template: 'pending' });
    expect(await (await job(template.id))?.getState()).toBe('waiting');
    await previews.drain();
  });

  it('does not write pending over failed, nor ready over failed when only pending is expected', async () => {
    const template = await templateWithPreview('failed');
    expect(await markPreview(database.db, template.id, 1, 'pending', null, { onlyIf: null })).toBe(false);
    expect(await markPreview(database.db, template.id, 1, 'ready', null, { onlyIf: 'pending' })).toBe(false);
    expect(await statuses(template.id)).toEqual({ version: 'failed', template: 'failed' });
  });

  it('marks the template’s copy too when the version it renders is published while the mark waits', async () => {
    const template = await templateWithPreview('ready');
    const draft = await database.db.templateVersion.create({
      data: { templateId: template.id, version: 2, status: 'draft', fileKey: template.fileKey, fileSize: 1, previewStatus: 'pending' },
    });
    const { marking } = await database.db.$transaction(async (tx) => {
      await lockTemplate(tx, template.id);
      const waiting = await blockedBy(tx);
      const marking = markPreview(database.db, template.id, 2, 'ready', null);
      await eventually(async () => (await waiting()) > 0, 'the preview’s mark waiting for the template’s row');
      // The template now copies version 2, its preview still pending as the publish read it.
      await publish(tx, draft, 'someone');
      return { marking };
    });
    expect(await marking).toBe(true);
    expect((await database.db.template.findUniqueOrThrow({ where: { id: template.id } })).previewStatus).toBe('ready');
  });

  it('decides on the version’s state as it is once the rows are its own, not as its statement began', async () => {
    const template = await templateWithPreview('pending');
    const { marking } = await database.db.$transaction(async (tx) => {
      await lockTemplate(tx, template.id);
      const waiting = await blockedBy(tx);
      const marking = requestPreview({ db: database.db, previews }, template.id, 1, 'pending').then(() => undefined);
      await eventually(async () => (await waiting()) > 0, 'the request’s mark waiting for the template’s row');
      // A worker's ready, committed while the request waits.
      await tx.templateVersion.update({ where: { templateId_version: { templateId: template.id, version: 1 } }, data: { previewStatus: 'ready' } });
      await tx.template.update({ where: { id: template.id }, data: { previewStatus: 'ready' } });
      return { marking };
    });
    await marking;
    expect(await statuses(template.id)).toEqual({ version: 'ready', template: 'ready' });
    expect(await job(template.id)).toBeUndefined();
  });

  it('compares what it read with the version it read it from, when another was published since', async () => {
    const template = await templateWithPreview('ready'); // read now: version 1, its PNG missing from storage
    await database.db.templateVersion.update({ where: { templateId_version: { templateId: template.id, version: 1 } }, data: { status: 'superseded' } });
    await database.db.templateVersion.create({
      data: { templateId: template.id, version: 2, status: 'published', fileKey: template.fileKey, fileSize: 1, previewStatus: 'ready' },
    });
    await database.db.template.update({ where: { id: template.id }, data: { version: 2, previewStatus: 'ready' } });
    expect(await templatePreview({ db: database.db, storage: new LocalFileStorage(storageRoot), previews }, template)).toEqual({ ready: false });
    const version = async (n: number) =>
      (await database.db.templateVersion.findUniqueOrThrow({ where: { templateId_version: { templateId: template.id, version: n } } })).previewStatus;
    expect({
      v1: await version(1),
      v2: await version(2),
      copy: (await database.db.template.findUniqueOrThrow({ where: { id: template.id } })).previewStatus,
    }).toEqual({
      v1: 'pending',
      v2: 'ready',
      copy: 'ready',
    });
    expect(await (await job(template.id))?.getState()).toBe('waiting');
    expect(await previews.getJob(previewJobId({ templateId: template.id, version: 2 }))).toBeUndefined();
    await previews.drain();
  });

  it('heals a template whose copy says pending while its published version is ready, queueing nothing', async () => {
    const template = await templateWithPreview('ready');
    await database.db.template.update({ where: { id: template.id }, data: { previewStatus: 'pending' } });
    const drifted = await database.db.template.findUniqueOrThrow({ where: { id: template.id } });
    expect(await templatePreview({ db: database.db, storage: new LocalFileStorage(storageRoot), previews }, drifted)).toEqual({ ready: false });
    expect(await statuses(template.id)).toEqual({ version: 'ready', template: 'ready' });
    expect(await job(template.id)).toBeUndefined();
  });

  it('takes the template’s row before the version’s, as publishing does, so the two never deadlock', async () => {
    const template = await templateWithPreview('pending');
    const { marking } = await database.db.$transaction(async (tx) => {
      await lockTemplate(tx, template.id);
      const waiting = await blockedBy(tx);
      const marking = markPreview(database.db, template.id, 1, 'ready', null);
      await eventually(async () => (await waiting()) > 0, 'the preview’s mark waiting for the template’s row');
      // Publishing goes on to the version's row: had the mark locked it first, PostgreSQL would end one of the two as a deadlock.
      await tx.$executeRaw`UPDATE template_versions SET published_by = 'someone' WHERE template_id = ${template.id}::uuid AND version = 1`;
      return { marking }; // awaited after the commit lets it go
    });
    expect(await marking).toBe(true);
    expect(await statuses(template.id)).toEqual({ version: 'ready', template: 'ready' });
  });
});
