import { queueRenderJobs, sweepStuckDocuments, type StuckDocumentSweepTiming } from '@docgen/documents';
import { createLogger } from '@docgen/observability';
import { blockingConnection, createRedisConnection, createRenderQueue, pumpFairQueue, renderTakeList } from '@docgen/queue';
import { createTestDatabase, interceptSql, seedOrganization, uniqueId, type TestDatabase } from '@docgen/testing';
import { renderDocument, type RenderDeps } from '../src/process-render-job';
import { RenderTakeRunner } from '../src/render-take-runner';

/** Production's ratios, scaled down: lock (heartbeat) 30 s → 600 ms, render timeout 60 s + grace 5 s → 1.2 s + 0.1 s; 3 attempts, 3 takes. */
const LOCK_MS = 600;
const TIMING: StuckDocumentSweepTiming = { renderTimeoutMs: 1_200, graceMs: 100, intervalMs: 100, maxAttempts: 3 };
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A template that kills its worker on every take. A take "dies" where the template file is
 * loaded: its Redis connections close without finishing the take (its heartbeat stops), and
 * its database handle stops answering, so no timer or late code of the dead process reaches
 * PostgreSQL. Real PostgreSQL, Redis, render list, abandoned-render sweep and stuck-document sweep.
 */
describe('a template that kills its worker on every take', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  async function crashLoop(renderingMarkAfterMs: number) {
    const prefix = `test:${uniqueId()}:`;
    const redis = createRedisConnection(REDIS_URL, 'worker');
    const queue = createRenderQueue(redis, prefix);
    const { organizationId } = await seedOrganization(database.db);
    const template = await database.db.template.create({
      data: { organizationId, name: 'deadly', format: 'docx', fileKey: `templates/${organizationId}.docx`, fileSize: 1, variables: [] },
    });
    const doc = await database.db.document.create({
      data: { organizationId, templateId: template.id, inputFormat: 'docx', outputFormat: 'pdf', inputJson: {} },
    });
    await queueRenderJobs(queue, [doc]);
    const takes: string[] = [];
    const workers: RenderTakeRunner[] = [];
    let over = false;

    const startWorker = (): RenderTakeRunner => {
      let dead = false;
      const db = interceptSql(database.db, () => (dead ? new Promise<never>(() => undefined) : undefined));
      const connection = createRedisConnection(REDIS_URL, 'worker');
      const blocking = blockingConnection(connection);
      const deps = {
        db,
        renderingMarkAfterMs,
        renderTimeoutMs: TIMING.renderTimeoutMs,
        logger: createLogger('test', 'silent'),
        announce: async () => undefined,
        imageFetch: {},
        templateFile: async () => {
          const row = await database.db.document.findUniqueOrThrow({ where: { id: doc.id } });
          takes.push(`g${row.generation} ${row.status}/${row.renderAttempts}`);
          dead = true;
          connection.disconnect(); // no more beats: as a killed process
          void runner.stop(); // takes no more (its render never ends, so neither does this)
          if (!over) workers.push(startWorker());
          return new Promise<Buffer>(() => undefined);
        },
      } as unknown as RenderDeps;
      const runner = new RenderTakeRunner({
        taker: renderTakeList(connection, queue).taker(blocking),
        retries: queue,
        concurrency: 1,
        heartbeatMs: LOCK_MS,
        render: (take) => renderDocument(take, deps),
        onTake: () => undefined,
        logger: createLogger('test', 'silent'),
      });
      runner.start();
      return runner;
    };
    workers.push(startWorker());

    // The workers' periodic sweeps and fair-share pump, until the document has an outcome.
    const sweepDeps = { db: database.db, queue, announce: async () => undefined, logger: createLogger('test', 'silent') };
    const renderList = renderTakeList(redis, queue);
    let row = doc;
    for (const giveUpAt = Date.now() + 60_000; Date.now() < giveUpAt; await new Promise((resolve) => setTimeout(resolve, TIMING.intervalMs))) {
      await renderList.reclaimAbandoned(LOCK_MS);
      await sweepStuckDocuments(sweepDeps, TIMING);
      await pumpFairQueue(queue);
      row = await database.db.document.findUniqueOrThrow({ where: { id: doc.id } });
      if (row.status === 'failed' || row.status === 'ready') break;
    }
    over = true;
    for (const worker of workers) void worker.stop();
    await queue.obliterate({ force: true });
    await queue.close();
    redis.disconnect();
    return { takes, row };
  }

  it('is failed after three takes, counted 1, 2, 3, when every attempt is marked at once', async () => {
    const { takes, row } = await crashLoop(0);
    expect(takes).toEqual(['g1 rendering/1', 'g1 rendering/2', 'g1 rendering/3']);
    expect(row).toMatchObject({
      status: 'failed',
      renderAttempts: 3,
      errorMessage: 'Rendering took longer than 1 s; check the template for a broken expression',
    });
  }, 90_000);

  it('is failed after three takes too when the first is not marked before it kills the worker: the next take counts the takes before it', async () => {
    const { takes, row } = await crashLoop(60_000);
    expect(takes).toEqual(['g1 queued/0', 'g1 rendering/2', 'g1 rendering/3']);
    expect(row).toMatchObject({ status: 'failed', renderAttempts: 3 });
  }, 90_000);
});
