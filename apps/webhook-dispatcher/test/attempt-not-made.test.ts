import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { createPrismaClient } from '@docgen/db';
import { createLogger } from '@docgen/observability';
import { FirstAttempts, blockingConnection, createDeliveryQueue, createRedisConnection, deliveryJobId, type DeliveryJob } from '@docgen/queue';
import { createGuardedAgent } from '@docgen/security';
import { createTestDatabase, type TestDatabase } from '@docgen/testing';
import { AttemptOutcomes } from '@docgen/webhooks';
import { AttemptNotMadeError, deliver } from '../src/deliver';
import { EndpointSlots, withEndpointSlot } from '../src/endpoint-cap';
import { FirstAttemptRunner } from '../src/first-attempt-runner';
import { seedDelivery } from './seed-delivery';

/**
 * An attempt that could not be started (PostgreSQL unreachable when its log row is written)
 * sent nothing: it must not use one of the delivery's four attempts, nor count as a failure.
 */
describe('an attempt that could not be started', () => {
  let database: TestDatabase;
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefix = `test:${randomUUID()}:`;
  const logger = createLogger('test', 'silent');
  const agent = createGuardedAgent({ allowPrivate: false });
  // Nothing listens on port 1: every query is refused at once, as when PostgreSQL is down.
  const unreachable = createPrismaClient('postgresql://127.0.0.1:1/docgen');

  beforeAll(async () => (database = await createTestDatabase()));
  afterAll(async () => {
    await agent.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await unreachable.$disconnect();
    await database.drop();
  });

  const deliverDeps = (db: typeof unreachable) => ({
    db,
    outcomes: new AttemptOutcomes(database.db, { maxBatch: 1 }),
    logger,
    fetch: { agent, allowPrivate: false, timeoutMs: 1_000, maxBytes: 1024, maxRedirects: 0 },
  });

  it('is told apart from a statement the database refuses, which would recur and so fails the attempt', async () => {
    const pair = { eventId: randomUUID(), endpointId: randomUUID(), attempt: 1 };
    await expect(deliver(pair, deliverDeps(unreachable))).rejects.toBeInstanceOf(AttemptNotMadeError);
    const refused = await deliver({ ...pair, eventId: 'not-a-uuid' }, deliverDeps(database.db)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(refused).not.toBeInstanceOf(AttemptNotMadeError);
  });

  it('as a job: goes back to the delayed set with its attempts untouched, and is made again', async () => {
    const queueName = `not-made-${randomUUID()}`;
    const queue = new Queue<DeliveryJob>(queueName, { connection: redis, prefix: `${prefix}bull` });
    const attemptsSeen: number[] = [];
    let completed!: (value: unknown) => void;
    const done = new Promise((resolve) => (completed = resolve));
    const worker = new Worker<DeliveryJob>(
      queueName,
      (job, token) =>
        withEndpointSlot(job, token, new EndpointSlots(1), async () => {
          attemptsSeen.push(job.attemptsMade);
          if (attemptsSeen.length === 1) throw new AttemptNotMadeError('the attempt could not be started: connect ECONNREFUSED');
          return 'succeeded';
        }),
      { connection: redis.duplicate(), prefix: `${prefix}bull` },
    );
    worker.on('completed', (job) => completed(job));
    try {
      // A consumed attempt would wait a minute for its retry: the test would time out.
      await queue.add('document.ready', { eventId: randomUUID(), endpointId: randomUUID() }, { attempts: 4, backoff: { type: 'fixed', delay: 60_000 } });
      await done;
      expect(attemptsSeen).toEqual([0, 0]);
    } finally {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('as a first attempt: handed to a job that makes attempt 1, the delivery log untouched', async () => {
    const { organizationId, endpoint, event } = await seedDelivery(database.db);
    const firstAttempts = new FirstAttempts(redis, prefix);
    const retries = createDeliveryQueue(redis, prefix);
    const deps = deliverDeps(unreachable);
    const runner = new FirstAttemptRunner(
      {
        taker: firstAttempts.taker(blockingConnection(redis)),
        retries,
        slots: new EndpointSlots(5),
        organizationOf: async () => organizationId,
        concurrency: 1,
        retryBaseMs: 60_000,
        deliver: (attempt, releaseSlot) => deliver({ eventId: attempt.eventId, endpointId: attempt.endpointId, attempt: 1, fromList: true }, deps, releaseSlot),
        progress: async () => ({ made: 0, succeeded: false, sinceLastMs: null }),
        logger,
      },
      10_000,
    );
    runner.start();
    try {
      const jobId = deliveryJobId({ eventId: event.id, endpointId: endpoint.id });
      await firstAttempts.publish(event, [endpoint.id]);
      for (;;) {
        if (!(await firstAttempts.pendingJobIds())!.has(jobId)) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const job = (await retries.getJob(jobId))!;
      expect(job.data).toEqual({ eventId: event.id, endpointId: endpoint.id, attemptsBefore: 0 });
      expect(job.opts.attempts).toBe(4);
      expect(await database.db.webhookDelivery.count({ where: { eventId: event.id } })).toBe(0);
    } finally {
      await runner.stop();
      await retries.obliterate({ force: true });
      await retries.close();
    }
  });
});
