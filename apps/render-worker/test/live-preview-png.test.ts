import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import { createLogger } from '@docgen/observability';
import {
  LIVE_PREVIEW_ANSWER_GRACE_MS,
  LIVE_PREVIEW_PNG_KEPT_AFTER_DEADLINE_MS,
  createRedisConnection,
  livePreviewRequestKey,
  type LivePreviewJob,
  type LivePreviewRequest,
} from '@docgen/queue';
import { buildDocx, paragraph } from '@docgen/testing';
import { processLivePreview, type LivePreviewDeps } from '../src/process-live-preview';

/** A one-page PDF pdftoppm draws (no cross-reference table: it rebuilds one, as it does for damaged files). */
const ONE_PAGE_PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/**
 * A live preview's PNG waits in Redis for the gateway that asked, which stops waiting a second
 * after the job's deadline: it is kept only a few seconds past that deadline, so the page of a
 * preview nobody reads any more is soon gone (it was kept 30 s from whenever it was stored).
 */
describe('a live preview’s PNG in Redis', () => {
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefix = `test:${randomUUID()}:`;
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  /** Renders a preview whose job's deadline is `deadlineAt` (its render answered by a stand-in converter at once); the PNG's key's TTL. */
  async function renderedPngTtl(deadlineAt: number): Promise<number> {
    const jobId = randomUUID();
    const requestKey = livePreviewRequestKey(prefix, jobId);
    const request: LivePreviewRequest = {
      source: { templateId: randomUUID(), version: 1, fileKey: 'templates/x.docx', htmlFileKey: null, variables: [], locale: 'en-US' },
      input: {},
    };
    await redis.set(requestKey, JSON.stringify(request), 'PX', 10_000);
    const job = { id: jobId, timestamp: Date.now(), data: { organizationId: randomUUID(), requestKey, deadlineAt } } as unknown as Job<LivePreviewJob>;
    const deps = {
      redis,
      redisKeyPrefix: prefix,
      converter: { toPdf: async () => ONE_PAGE_PDF },
      templateFile: async () => buildDocx({ body: paragraph('Hello') }),
      logger: createLogger('test', 'silent'),
      imageFetch: {},
    } as unknown as LivePreviewDeps;
    const outcome = await processLivePreview(job, deps);
    expect(outcome).toMatchObject({ outcome: 'rendered' });
    const { pngKey } = outcome as { pngKey: string };
    expect((await redis.getBuffer(pngKey))?.subarray(1, 4).toString()).toBe('PNG');
    return redis.pttl(pngKey);
  }

  it('outlives the gateway’s wait for the answer and expires a few seconds after the job’s deadline', async () => {
    const deadlineAt = Date.now() + 2_000;
    const ttl = await renderedPngTtl(deadlineAt);
    const now = Date.now();
    expect(ttl).toBeGreaterThan(deadlineAt + LIVE_PREVIEW_ANSWER_GRACE_MS - now);
    expect(ttl).toBeLessThanOrEqual(deadlineAt + LIVE_PREVIEW_PNG_KEPT_AFTER_DEADLINE_MS - now + 50);
  });
});
