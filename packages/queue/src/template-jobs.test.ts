import { randomUUID } from 'node:crypto';
import { UnrecoverableError, Worker } from 'bullmq';
import { eventually } from '@docgen/testing';
import { bullPrefix } from './queues';
import { createRedisConnection } from './redis-connection';
import { MAX_PREVIEW_REQUEUES, TEMPLATE_PREVIEW_QUEUE, createTemplatePreviewQueue, previewJobId, queuePreview } from './template-jobs';

/** Stored template previews on the real Redis and BullMQ. */
describe('queuePreview', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = createRedisConnection(url, 'worker');
  const prefix = `test:${randomUUID()}:`;
  const queue = createTemplatePreviewQueue(redis, prefix);

  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  /** Fails the waiting preview job for good (as a worker that stalls out on it would), and stops. */
  async function failForGood(jobId: string): Promise<void> {
    const connection = createRedisConnection(url, 'worker');
    const failing = new Worker(
      TEMPLATE_PREVIEW_QUEUE,
      async () => {
        throw new UnrecoverableError('the worker went away');
      },
      { connection, prefix: bullPrefix(prefix) },
    );
    await eventually(async () => (await queue.getJob(jobId))?.isFailed(), 'the preview job failed for good');
    await failing.close();
    connection.disconnect();
  }

  it('queues a preview once while it waits; after its job failed for good, gives it another go, a bounded number of times', async () => {
    const templateId = randomUUID();
    const jobId = previewJobId({ templateId, version: 2 });
    expect(await queuePreview(queue, templateId, 2)).toBe(true);
    expect(await queuePreview(queue, templateId, 2)).toBe(true);
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });

    for (let requeue = 1; requeue <= MAX_PREVIEW_REQUEUES; requeue++) {
      await failForGood(jobId);
      expect(await queuePreview(queue, templateId, 2)).toBe(true);
      const again = (await queue.getJob(jobId))!;
      expect({ state: await again.getState(), attemptsMade: again.attemptsMade, requeues: again.data.requeues }).toEqual({
        state: 'waiting',
        attemptsMade: 0,
        requeues: requeue,
      });
    }
    // A template that kills its worker every time is given up, not rendered again at every poll.
    await failForGood(jobId);
    expect(await queuePreview(queue, templateId, 2)).toBe(false);
    expect(await (await queue.getJob(jobId))!.getState()).toBe('failed');
  });
});
