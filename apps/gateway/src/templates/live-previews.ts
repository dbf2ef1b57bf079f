import { randomUUID } from 'node:crypto';
import type { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { LivePreviewResult, livePreviewRequestKey, type LivePreviewJob, type LivePreviewRequest } from '@docgen/queue';
import { HttpError, dependencyDown } from '../errors';

/** After the job's deadline, how long the request still waits for the worker's own answer (a timeout it reports). */
const ANSWER_GRACE_MS = 1_000;
/** A preview not rendered in time may be asked for again this soon (the UI does so by itself). */
const RETRY_AFTER = { 'Retry-After': '2' };

export interface LivePreviewsOptions {
  queue: Queue<LivePreviewJob>;
  events: QueueEvents;
  redis: Redis;
  redisKeyPrefix: string;
  /** PREVIEW_TIMEOUT_MS: how long a worker has to render, counted from the request. */
  timeoutMs: number;
}

export type PreviewOutcome = { png: Buffer } | { invalid: { message: string; errors: { path: string; message: string }[] } };

/**
 * The filled first page of a template, rendered by a render worker (where LibreOffice and
 * Chromium live) for a request that waits: the request in a Redis key that expires, a job on
 * the live-previews queue, the answer within PREVIEW_TIMEOUT_MS or 503, the PNG read from
 * Redis and deleted (its size is bounded by its pixels: at most 1100 x 1100, under 4 MB).
 * Nothing touches PostgreSQL or storage.
 */
export class LivePreviews {
  constructor(private readonly options: LivePreviewsOptions) {}

  async render(organizationId: string, request: LivePreviewRequest): Promise<PreviewOutcome> {
    const { queue, events, redis, redisKeyPrefix, timeoutMs } = this.options;
    const jobId = randomUUID();
    const requestKey = livePreviewRequestKey(redisKeyPrefix, jobId);
    const waitMs = timeoutMs + ANSWER_GRACE_MS;
    const job = await (async () => {
      await redis.set(requestKey, JSON.stringify(request), 'PX', waitMs);
      return queue.add('preview', { organizationId, requestKey, deadlineAt: Date.now() + timeoutMs }, { jobId });
    })().catch(redisDown);

    let outcome: LivePreviewResult;
    try {
      outcome = LivePreviewResult.parse(await job.waitUntilFinished(events, waitMs));
    } catch (error) {
      // Not taken, or taken and never answered: take it back so no worker spends an instance on it.
      await Promise.all([job.remove().catch(() => undefined), redis.unlink(requestKey).catch(() => undefined)]);
      // BullMQ words its own time-out this way; anything else is the worker's job failing.
      const timedOut = (error as Error).message?.startsWith('Job wait');
      throw new HttpError(
        'dependency_unavailable',
        timedOut
          ? `No render worker rendered the preview within ${Math.round(waitMs / 1000)} s; please try again shortly.`
          : 'The render worker could not render the preview; please try again shortly.',
        { headers: RETRY_AFTER },
      );
    }
    if (outcome.outcome === 'invalid') return { invalid: { message: outcome.message, errors: outcome.errors } };
    if (outcome.outcome === 'expired')
      throw new HttpError('dependency_unavailable', 'No render worker rendered the preview in time; please try again shortly.', { headers: RETRY_AFTER });
    const [png] = await Promise.all([redis.getBuffer(outcome.pngKey), redis.unlink(outcome.pngKey)]).catch(redisDown);
    if (!png) throw new HttpError('dependency_unavailable', 'The preview expired before it could be sent; please try again.', { headers: RETRY_AFTER });
    return { png };
  }
}

const redisDown = (): never => {
  throw dependencyDown('redis');
};
