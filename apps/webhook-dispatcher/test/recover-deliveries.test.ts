import { randomUUID } from 'node:crypto';
import { createLogger } from '@docgen/observability';
import { FirstAttempts, createDeliveryQueue, createRedisConnection, deliveryJobId } from '@docgen/queue';
import { createTestDatabase, seedOrganization, type TestDatabase } from '@docgen/testing';
import { recoverLostDeliveries } from '../src/recover-deliveries';

/**
 * The lost-delivery sweep on real PostgreSQL and Redis: a delivery whose first attempt is on
 * the list (waiting, or taken by a dispatcher) is not queued a second time; one Redis forgot is.
 */
describe('the lost-delivery sweep and first attempts', () => {
  let database: TestDatabase;
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const blocking = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefix = `test:${randomUUID()}:`;
  const queue = createDeliveryQueue(redis, prefix);
  const firstAttempts = new FirstAttempts(redis, prefix);
  const sweep = () => recoverLostDeliveries({ db: database.db, queue, firstAttempts, logger: createLogger('test', 'silent'), retryBaseMs: 1_000 });

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await queue.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    blocking.disconnect();
    await database.drop();
  });

  it('leaves a first attempt on the list alone, waiting or taken, and queues one Redis lost as attempt 1', async () => {
    const { organizationId } = await seedOrganization(database.db);
    const endpoint = await database.db.webhookEndpoint.create({
      data: { organizationId, url: 'https://example.test/hook', events: ['document.ready'], secret: 'whsec_x', createdAt: new Date(Date.now() - 60_000) },
    });
    const event = await database.db.outboxEvent.create({
      data: { type: 'document.ready', organizationId, isUat: false, subjectId: randomUUID(), payload: {}, publishedAt: new Date() },
    });
    const jobId = deliveryJobId({ eventId: event.id, endpointId: endpoint.id });
    await firstAttempts.publish(event, [endpoint.id]);

    expect(await sweep()).toBe(0); // waiting on the list
    const taker = firstAttempts.taker(blocking);
    await taker.beat();
    const taken = (await taker.take(1))!;
    expect(await sweep()).toBe(0); // taken by a live dispatcher
    expect(await queue.getJob(jobId)).toBeUndefined();

    await redis.del(...(await redis.keys(`${prefix}{first-attempts}*`))); // Redis lost it
    expect(await sweep()).toBe(1);
    const job = (await queue.getJob(jobId))!;
    expect(job.data).toEqual({ eventId: event.id, endpointId: endpoint.id, attemptsBefore: 0 });
    expect(job.opts.attempts).toBe(4);
    expect(await sweep()).toBe(0); // the job is there now
    await taker.done(taken.raw);
  });
});
