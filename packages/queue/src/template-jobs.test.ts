import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import { eventually } from '@docgen/testing';
import { bullPrefix } from './queues';
import { createRedisConnection } from './redis-connection';
import { TEMPLATE_PREVIEW_QUEUE, createTemplatePreviewQueue, previewJobId, queuePreview } from './template-jobs';

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

  it('queues a preview once while it waits, and again after its job failed for good', async () => {
    const templateId = randomUUID();
    await queuePreview(queue, templateId, 2);
    await queuePreview(queue, templateId, 2);
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });

    // Its worker fails it on every attempt (as a worker that stalls out would): the job stays in the failed set.
    const connection = createRedisConnection(url, 'worker');
    const failing = new Worker(
      TEMPLATE_PREVIEW_QUEUE,
      async () => {
        throw new Error('the worker went away');
      },
      { connection, prefix: bullPrefix(prefix) },
    );
    const job = (await queue.getJob(previewJobId({ templateId, version: 2 })))!;
    await eventually(() => job.isFailed(), 'the preview job failed for good after its three attempts', 30_000);
    await failing.close();
    connection.disconnect();

    await queuePreview(queue, templateId, 2);
    const again = (await queue.getJob(previewJobId({ templateId, version: 2 })))!;
    expect(await again.getState()).toBe('waiting');
    expect(again.attemptsMade).toBe(0);
  });
});
