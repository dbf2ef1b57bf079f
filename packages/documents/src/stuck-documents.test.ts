import { createLogger } from '@docgen/observability';
import { blockingConnection, createRedisConnection, createRenderQueue, enqueueFairly, pendingRenderJobIds, renderJobId, renderTakeList } from '@docgen/queue';
import { createTestDatabase, seedOrganization, uniqueId, type TestDatabase } from '@docgen/testing';
import { stuckDocumentSweepTiming, sweepStuckDocuments } from './stuck-documents';

/** The stuck-document sweep against real PostgreSQL and Redis, with the fair-share backlogs and the render list in front of BullMQ. */
describe('the stuck-document sweep and the fair-share backlogs', () => {
  let database: TestDatabase;
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefix = `test:${uniqueId()}:`;
  const queue = createRenderQueue(redis, prefix);

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await database.drop();
  });

  it("reaches a lost document behind more than a page of another organisation's older documents waiting their turn, and leaves those alone", async () => {
    const old = new Date(Date.now() - 10 * 60_000);
    const organization = async () => {
      const { organizationId } = await seedOrganization(database.db);
      const template = await database.db.template.create({
        data: { organizationId, name: 't', format: 'docx', fileKey: `templates/${organizationId}.docx`, fileSize: 1, variables: [] },
      });
      return { organizationId, templateId: template.id };
    };
    const busy = await organization();
    const other = await organization();
    const row = (owner: { organizationId: string; templateId: string }, minutesAgo: number) => ({
      organizationId: owner.organizationId,
      templateId: owner.templateId,
      inputFormat: 'docx',
      outputFormat: 'docx',
      inputJson: {},
      status: 'queued',
      updatedAt: new Date(old.getTime() - minutesAgo * 60_000),
    });
    // 700 older documents of one organisation, all waiting in its backlog (nothing handed to the render list).
    await database.db.document.createMany({ data: Array.from({ length: 700 }, () => row(busy, 5)) });
    const waiting = await database.db.document.findMany({ where: { organizationId: busy.organizationId } });
    await enqueueFairly(
      queue,
      waiting.map((doc) => ({ documentId: doc.id, generation: doc.generation, organizationId: doc.organizationId })),
      0,
    );
    // Another organisation's document whose job was lost (a gateway died between insert and queueing).
    const lost = await database.db.document.create({ data: row(other, 0) });

    await sweepStuckDocuments(
      { db: database.db, queue, announce: async () => undefined, logger: createLogger('test', 'silent') },
      stuckDocumentSweepTiming(1_000),
    );

    const swept = await database.db.document.findUniqueOrThrow({ where: { id: lost.id } });
    expect(swept.generation).toBe(2);
    expect(await database.db.document.count({ where: { organizationId: busy.organizationId, generation: { gt: 1 } } })).toBe(0);
    // Its new generation is queued (in its organisation's backlog, or handed to the render list).
    const job = { documentId: lost.id, generation: 2, organizationId: other.organizationId };
    const handed = (await pendingRenderJobIds(queue)).has(renderJobId(job));
    const backlog = await redis.zscore(`${prefix}bull:render:fair:backlog:${other.organizationId}`, renderJobId(job));
    expect(handed || backlog !== null).toBe(true);
  });

  it('leaves alone a queued document whose render is on the render list, waiting or taken by a worker', async () => {
    const { organizationId } = await seedOrganization(database.db);
    const template = await database.db.template.create({
      data: { organizationId, name: 't', format: 'docx', fileKey: `templates/${organizationId}.docx`, fileSize: 1, variables: [] },
    });
    const updatedAt = new Date(Date.now() - 10 * 60_000);
    const [taken, waiting] = await Promise.all(
      [0, 1].map(() =>
        database.db.document.create({
          data: { organizationId, templateId: template.id, inputFormat: 'docx', outputFormat: 'docx', inputJson: {}, status: 'queued', updatedAt },
        }),
      ),
    );
    const ownQueue = createRenderQueue(redis, `${prefix}own:`); // no backlog of the test above in front
    await enqueueFairly(
      ownQueue,
      [taken!, waiting!].map((doc) => ({ documentId: doc.id, generation: 1, organizationId })),
    );
    const blocking = blockingConnection(redis);
    const worker = renderTakeList(redis, ownQueue).taker(blocking);
    await worker.beat();
    expect((await worker.take(1))?.body).toBe(renderJobId({ documentId: taken!.id, generation: 1 })); // the first queued is taken first
    blocking.disconnect();

    await sweepStuckDocuments(
      { db: database.db, queue: ownQueue, announce: async () => undefined, logger: createLogger('test', 'silent') },
      stuckDocumentSweepTiming(1_000),
    );
    await ownQueue.close();
    const after = await database.db.document.findMany({ where: { id: { in: [taken!.id, waiting!.id] } } });
    expect(after.map((doc) => doc.generation)).toEqual([1, 1]);
  });
});
