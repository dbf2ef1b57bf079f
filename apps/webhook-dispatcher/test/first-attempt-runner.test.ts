import { randomUUID } from 'node:crypto';
import { createLogger } from '@docgen/observability';
import { FirstAttempts, blockingConnection, createDeliveryQueue, createRedisConnection, deliveryJobId } from '@docgen/queue';
import { createGuardedAgent } from '@docgen/security';
import { createTestDatabase, type TestDatabase } from '@docgen/testing';
import { AttemptOutcomes, deliveryProgress } from '@docgen/webhooks';
import { deliver } from '../src/deliver';
import { EndpointSlots } from '../src/endpoint-cap';
import { EndpointOrganizations } from '../src/endpoint-organizations';
import { FirstAttemptRunner } from '../src/first-attempt-runner';
import { seedDelivery } from './seed-delivery';

/**
 * The runner with the real deliver, PostgreSQL and Redis, on the paths that send nothing:
 * a first attempt offered again after its attempt ended hands the rest of the delivery to a
 * job instead of sending attempt 1 twice or leaving it to the lost-delivery sweep.
 */
describe('first attempts offered again', () => {
  let database: TestDatabase;
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefix = `test:${randomUUID()}:`;
  const retries = createDeliveryQueue(redis, prefix);
  const firstAttempts = new FirstAttempts(redis, prefix);
  const logger = createLogger('test', 'silent');
  let runner: FirstAttemptRunner;
  const agent = createGuardedAgent({ allowPrivate: false });

  beforeAll(async () => {
    database = await createTestDatabase();
    const db = database.db;
    const outcomes = new AttemptOutcomes(db, { maxBatch: 1 });
    const deps = { db, outcomes, logger, fetch: { agent, allowPrivate: false, timeoutMs: 1_000, maxBytes: 1024, maxRedirects: 0 } };
    runner = new FirstAttemptRunner(
      {
        taker: firstAttempts.taker(blockingConnection(redis)),
        retries,
        slots: new EndpointSlots(5),
        organizationOf: (endpointId) => new EndpointOrganizations(db).of(endpointId),
        concurrency: 4,
        retryBaseMs: 60_000,
        deliver: (attempt, releaseSlot) => deliver({ eventId: attempt.eventId, endpointId: attempt.endpointId, attempt: 1, fromList: true }, deps, releaseSlot),
        progress: (attempt) => deliveryProgress(db, attempt),
        logger,
      },
      10_000,
    );
    runner.start();
  });
  afterAll(async () => {
    await runner.stop();
    await Promise.all([retries.close(), agent.close()]);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await database.drop();
  });

  const delivery = async (attempts: { attempt: number; status: 'failed' | 'succeeded' }[]) => {
    const { endpoint, event, subject } = await seedDelivery(database.db);
    for (const { attempt, status } of attempts) {
      await database.db.webhookDelivery.create({
        data: { eventId: event.id, endpointId: endpoint.id, attempt, event: 'document.ready', jobId: subject, webhookId: 'msg_x', status },
      });
    }
    return { event, endpointId: endpoint.id, jobId: deliveryJobId({ eventId: event.id, endpointId: endpoint.id }) };
  };
  const handled = async (jobId: string) => {
    for (;;) {
      const pending = (await firstAttempts.pendingJobIds())!;
      if (!pending.has(jobId)) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('after attempt 1 failed with no retry queued: queues attempts 2 to 4, sending nothing', async () => {
    const { event, endpointId, jobId } = await delivery([{ attempt: 1, status: 'failed' }]);
    await firstAttempts.publish(event, [endpointId]);
    await handled(jobId);
    const job = (await retries.getJob(jobId))!;
    expect(job.data).toEqual({ eventId: event.id, endpointId, attemptsBefore: 1 });
    expect(job.opts.attempts).toBe(3);
    // Attempt 1 was not sent again (its outcome would have been written over this one).
    expect(await database.db.webhookDelivery.findMany({ where: { eventId: event.id }, select: { attempt: true, status: true, error: true } })).toEqual([
      { attempt: 1, status: 'failed', error: null },
    ]);
  });

  it('after the delivery succeeded, or its endpoint is gone: nothing is queued', async () => {
    const { event, endpointId, jobId } = await delivery([{ attempt: 1, status: 'succeeded' }]);
    await firstAttempts.publish(event, [endpointId]);
    await handled(jobId);
    expect(await retries.getJob(jobId)).toBeUndefined();

    const gone = await delivery([]);
    await database.db.webhookEndpoint.update({ where: { id: gone.endpointId }, data: { deletedAt: new Date() } });
    await firstAttempts.publish(gone.event, [gone.endpointId]);
    await handled(gone.jobId);
    expect(await retries.getJob(gone.jobId)).toBeUndefined();
  });
});
