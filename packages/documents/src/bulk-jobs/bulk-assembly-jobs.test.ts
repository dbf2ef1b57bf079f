import { UnrecoverableError, Worker } from 'bullmq';
import { BULK_ASSEMBLY_QUEUE, bullPrefix, createBulkAssemblyQueue, createRedisConnection } from '@docgen/queue';
import { createTestDatabase, rowsRead, seedOrganization, uniqueId, type TestDatabase } from '@docgen/testing';
import { FINISHED_BULK_JOBS, sweepFinishedBulkJobs } from './bulk-assembly-jobs';

/** The finished-bulk-job sweep on real PostgreSQL and Redis: what it queues, and what it reads to find it. */
describe('the finished-bulk-job sweep', () => {
  let database: TestDatabase;
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefix = `test:${uniqueId()}:`;
  const queue = createBulkAssemblyQueue(redis, prefix);

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    redis.disconnect();
    await database.drop();
  });

  it('queues the assembly of a bulk job whose rows all finished, reading the open bulk jobs, not every one ever made', async () => {
    const { organizationId } = await seedOrganization(database.db);
    const template = await database.db.template.create({
      data: { organizationId, name: 't', format: 'docx', fileKey: `templates/${organizationId}.docx`, fileSize: 1, variables: [] },
    });
    const settled = new Date(Date.now() - 60_000);
    const bulkJob = (status: string, finishedRows: number) => ({
      organizationId,
      templateId: template.id,
      outputFormat: 'pdf',
      status,
      totalRows: 2,
      succeeded: finishedRows,
      updatedAt: settled,
    });
    // Years of bulk jobs, assembled long ago.
    await database.db.bulkJob.createMany({ data: Array.from({ length: 3_000 }, () => bulkJob('completed', 2)) });
    const due = await database.db.bulkJob.create({ data: bulkJob('running', 2) });
    const halfway = await database.db.bulkJob.create({ data: bulkJob('running', 1) });
    await database.db.sql.query({ text: 'ANALYZE bulk_jobs' });

    await sweepFinishedBulkJobs({ db: database.db, queue }, 10_000);
    expect(await queue.getJob(due.id)).toBeDefined();
    expect(await queue.getJob(halfway.id)).toBeUndefined();

    expect(await rowsRead(database.db, FINISHED_BULK_JOBS, [10])).toBeLessThan(100);
  });

  it('queues the assembly again when the job of the same id failed or completed without finishing the bulk job', async () => {
    const { organizationId } = await seedOrganization(database.db);
    const template = await database.db.template.create({
      data: { organizationId, name: 't', format: 'docx', fileKey: `templates/${organizationId}-2.docx`, fileSize: 1, variables: [] },
    });
    const due = () =>
      database.db.bulkJob.create({
        data: {
          organizationId,
          templateId: template.id,
          outputFormat: 'pdf',
          status: 'running',
          totalRows: 1,
          succeeded: 1,
          updatedAt: new Date(Date.now() - 60_000),
        },
      });
    await queue.drain(); // the first case's waiting job
    const failed = await due();
    const completed = await due();
    // Assembly jobs that ended, kept by BullMQ under the bulk jobs' ids: one failed by BullMQ
    // (as after its worker died twice), one that found its rows not all done yet.
    const worker = new Worker(BULK_ASSEMBLY_QUEUE, null, { connection: redis, prefix: bullPrefix(prefix) });
    try {
      for (const bulk of [failed, completed]) {
        await queue.add('assemble', { bulkJobId: bulk.id }, { jobId: bulk.id });
        const job = (await worker.getNextJob('token', { block: false }))!;
        expect(job.id).toBe(bulk.id);
        if (bulk === failed) await job.moveToFailed(new UnrecoverableError('job stalled more than allowable limit'), 'token');
        else await job.moveToCompleted('not finished', 'token', false);
      }
    } finally {
      await worker.close();
    }
    expect(await (await queue.getJob(failed.id))!.getState()).toBe('failed');
    expect(await (await queue.getJob(completed.id))!.getState()).toBe('completed');

    await sweepFinishedBulkJobs({ db: database.db, queue }, 10_000);
    expect(await (await queue.getJob(failed.id))!.getState()).toBe('waiting');
    expect(await (await queue.getJob(completed.id))!.getState()).toBe('waiting');
  });
});
