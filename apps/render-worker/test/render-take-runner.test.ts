import { Worker, type Job } from 'bullmq';
import { queueRenderJobs } from '@docgen/documents';
import { createLogger } from '@docgen/observability';
import {
  RENDER_QUEUE,
  blockingConnection,
  bullPrefix,
  createRedisConnection,
  createRenderQueue,
  renderJobId,
  renderTakeCounts,
  renderTakeList,
  type RenderJob,
} from '@docgen/queue';
import { createTestDatabase, eventually, seedOrganization, uniqueId, type TestDatabase } from '@docgen/testing';
import { processRenderJob, renderDocument, type RenderDeps } from '../src/process-render-job';
import { RenderTakeRunner } from '../src/render-take-runner';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A document whose template file cannot be read (a storage hiccup: worth retrying) on every
 * attempt: the first take comes from the render list, its retries are BullMQ jobs, and the
 * attempts add up to three across both. Real PostgreSQL, Redis and BullMQ.
 */
describe('the render list hands a failed first attempt to BullMQ for its retries', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('retries twice as BullMQ jobs, then fails the document after three attempts in all', async () => {
    const prefix = `test:${uniqueId()}:`;
    const redis = createRedisConnection(REDIS_URL, 'worker');
    const queue = createRenderQueue(redis, prefix);
    const { organizationId } = await seedOrganization(database.db);
    const template = await database.db.template.create({
      data: { organizationId, name: 'unreadable', format: 'docx', fileKey: `templates/${organizationId}.docx`, fileSize: 1, variables: [] },
    });
    const doc = await database.db.document.create({
      data: { organizationId, templateId: template.id, inputFormat: 'docx', outputFormat: 'docx', inputJson: {} },
    });
    const attempts: string[] = [];
    const deps = {
      db: database.db,
      renderingMarkAfterMs: 0,
      renderTimeoutMs: 30_000,
      logger: createLogger('test', 'silent'),
      announce: async () => undefined,
      imageFetch: {},
      templateFile: async () => {
        const row = await database.db.document.findUniqueOrThrow({ where: { id: doc.id } });
        attempts.push(`${row.status}/${row.renderAttempts}`);
        throw new Error('storage unavailable');
      },
    } as unknown as RenderDeps;

    const blocking = blockingConnection(redis);
    const runner = new RenderTakeRunner({
      taker: renderTakeList(redis, queue).taker(blocking),
      retries: queue,
      concurrency: 1,
      heartbeatMs: 30_000,
      render: (take) => renderDocument(take, deps),
      onTake: () => undefined,
      logger: createLogger('test', 'silent'),
    });
    runner.start();
    await queueRenderJobs(queue, [doc]);

    // The first attempt's failure becomes a job with the two attempts left; then (never before) its entry leaves the list.
    const job = await eventually(() => queue.getJob(renderJobId({ documentId: doc.id, generation: 1 })), 'the retry job', 30_000);
    expect(job.data).toEqual({ documentId: doc.id, generation: 1, takesBefore: 1, attemptsBefore: 1 });
    expect(job.opts.attempts).toBe(2);
    await eventually(
      async () => {
        const counts = await renderTakeCounts(queue);
        return counts.waiting + counts.taken === 0;
      },
      'the entry off the render list',
      30_000,
    );
    expect(await database.db.document.findUniqueOrThrow({ where: { id: doc.id } })).toMatchObject({ status: 'queued', renderAttempts: 1 });

    const connection = createRedisConnection(REDIS_URL, 'worker');
    const worker = new Worker<RenderJob>(RENDER_QUEUE, (taken: Job<RenderJob>) => processRenderJob(taken, deps), {
      connection,
      prefix: bullPrefix(prefix),
      concurrency: 1,
    });
    const failed = await eventually(
      async () => {
        const row = await database.db.document.findUniqueOrThrow({ where: { id: doc.id } });
        return row.status === 'failed' ? row : undefined;
      },
      'the document failed',
      30_000,
    );
    expect(attempts).toEqual(['rendering/1', 'rendering/2', 'rendering/3']);
    expect(failed).toMatchObject({ renderAttempts: 3, errorMessage: 'Rendering failed after 3 attempts (storage unavailable); please try again' });

    await worker.close();
    await runner.stop();
    await queue.obliterate({ force: true });
    await queue.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    connection.disconnect();
    redis.disconnect();
  }, 60_000);
});
