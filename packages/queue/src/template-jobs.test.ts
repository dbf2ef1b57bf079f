import { randomUUID } from 'node:crypto';
import { UnrecoverableError, Worker } from 'bullmq';
import { eventually } from '@docgen/testing';
import { bullPrefix } from './queues';
import { createRedisConnection } from './redis-connection';
import { TEMPLATE_PREVIEW_QUEUE, createTemplatePreviewQueue, previewJobId, queuePreview, takeUpFailed } from './template-jobs';

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

  /** Fails the waiting preview job for good with `reason`, and stops. */
  async function failForGood(jobId: string, reason: string): Promise<void> {
    const connection = createRedisConnection(url, 'worker');
    const failing = new Worker(
      TEMPLATE_PREVIEW_QUEUE,
      async () => {
        throw new UnrecoverableError(reason);
      },
      { connection, prefix: bullPrefix(prefix) },
    );
    await eventually(async () => (await queue.getJob(jobId))?.isFailed(), 'the preview job failed for good');
    await failing.close();
    connection.disconnect();
  }

  it('queues a preview once while it waits, and retries in place a job that failed for good (twice, one caller losing the race)', async () => {
    const templateId = randomUUID();
    const jobId = previewJobId({ templateId, version: 2 });
    expect(await queuePreview(queue, templateId, 2)).toBe('queued');
    expect(await queuePreview(queue, templateId, 2)).toBe('queued');
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });

    await failForGood(jobId, 'Can’t reach database server');
    // Its worker had died under it once before (BullMQ counts it on the job), which the retry must not carry over.
    await redis.hincrby(queue.toKey(jobId), 'stc', 1);
    expect((await queue.getJob(jobId))!.stalledCounter).toBe(1);
    expect(await Promise.all([queuePreview(queue, templateId, 2), queuePreview(queue, templateId, 2)])).toEqual(['queued', 'queued']);
    const again = (await queue.getJob(jobId))!;
    expect({ state: await again.getState(), attemptsMade: again.attemptsMade, stalls: again.stalledCounter }).toEqual({
      state: 'waiting',
      attemptsMade: 0,
      stalls: 0,
    });
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });
  });

  it('leaves the stall count of a job another caller has retried already (a worker may be on it)', async () => {
    const templateId = randomUUID();
    const jobId = previewJobId({ templateId, version: 3 });
    await queuePreview(queue, templateId, 3);
    await redis.hincrby(queue.toKey(jobId), 'stc', 1);
    expect(await takeUpFailed(queue, jobId)).toBe('not-failed');
    expect((await queue.getJob(jobId))!.stalledCounter).toBe(1);
  });

  it('does not run again a preview whose worker died under it: the caller is told, to mark it failed', async () => {
    const templateId = randomUUID();
    const jobId = previewJobId({ templateId, version: 1 });
    await queuePreview(queue, templateId, 1);
    // The reason BullMQ itself gives a job whose lock lapsed once too often (moveStalledJobsToWait).
    await failForGood(jobId, 'job stalled more than allowable limit');
    expect(await queuePreview(queue, templateId, 1)).toBe('stalled');
    expect(await (await queue.getJob(jobId))!.getState()).toBe('failed');
  });
});
