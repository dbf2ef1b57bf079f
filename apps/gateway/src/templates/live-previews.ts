import { randomUUID } from 'node:crypto';
import type { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  LIVE_PREVIEW_ANSWER_GRACE_MS,
  LivePreviewResult,
  livePreviewPngKey,
  livePreviewRequestKey,
  type LivePreviewJob,
  type LivePreviewRequest,
} from '@docgen/queue';
import { HttpError, dependencyDown } from '../errors';
import type { InFlightSlots } from './in-flight-slots';

/** A preview not rendered in time may be asked for again this soon (the UI does so by itself). */
const RETRY_AFTER = { 'Retry-After': '2' };

export interface LivePreviewsOptions {
  queue: Queue<LivePreviewJob>;
  events: QueueEvents;
  redis: Redis;
  /** LIVE_PREVIEWS_PER_ORG of them per organisation: previews go ahead of documents on the workers' LibreOffice and Chromium. */
  slots: InFlightSlots;
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
 * Nothing touches PostgreSQL or storage. An organisation has at most LIVE_PREVIEWS_PER_ORG
 * in flight across gateways (429 beyond): a worker takes previews ahead of documents, so many
 * people or keys of one organisation previewing at once must not hold every LibreOffice.
 */
export class LivePreviews {
  constructor(private readonly options: LivePreviewsOptions) {}

  /**
   * `callerGone` aborts when the caller stops waiting (a page asking again as the author
   * types): the job is taken back if no worker has it yet, and the slot freed then; a worker
   * that has it renders on to its deadline, so the slot stays taken until it is done. Rejects
   * with PreviewAbandoned then.
   */
  async render(organizationId: string, request: LivePreviewRequest, callerGone?: AbortSignal): Promise<PreviewOutcome> {
    const { slots, timeoutMs } = this.options;
    const jobId = randomUUID();
    const waitMs = timeoutMs + LIVE_PREVIEW_ANSWER_GRACE_MS;
    const taken = await slots.take(organizationId, jobId, waitMs + 5_000).catch(redisDown);
    if (!taken) {
      throw new HttpError(
        'rate_limited',
        `This organisation already has ${slots.limit} live preview${slots.limit === 1 ? '' : 's'} being rendered; try again in a moment`,
        { headers: RETRY_AFTER },
      );
    }
    let renderingOn: Promise<unknown> | undefined;
    try {
      return await this.renderOnWorker(organizationId, jobId, request, waitMs, callerGone, (rendering) => (renderingOn = rendering));
    } finally {
      const release = () => slots.release(organizationId, jobId).catch(() => undefined); // else its lease ends it
      if (renderingOn) void renderingOn.then(release, release);
      else await release();
    }
  }

  private async renderOnWorker(
    organizationId: string,
    jobId: string,
    request: LivePreviewRequest,
    waitMs: number,
    callerGone: AbortSignal | undefined,
    stillRendering: (rendering: Promise<unknown>) => void,
  ): Promise<PreviewOutcome> {
    const { queue, events, redis, redisKeyPrefix, timeoutMs } = this.options;
    const requestKey = livePreviewRequestKey(redisKeyPrefix, jobId);
    const job = await (async () => {
      await redis.set(requestKey, JSON.stringify(request), 'PX', waitMs);
      return queue.add('preview', { organizationId, requestKey, deadlineAt: Date.now() + timeoutMs }, { jobId });
    })().catch(redisDown);

    let outcome: LivePreviewResult;
    const finished = job.waitUntilFinished(events, waitMs);
    finished.catch(() => undefined); // also when nobody waits for it any more
    try {
      outcome = LivePreviewResult.parse(await untilAborted(finished, callerGone));
    } catch (error) {
      // Not taken, taken and never answered, or no longer wanted: take it back so no worker spends an instance on it.
      const [removed] = await Promise.all([
        job.remove().then(
          () => true,
          () => false,
        ),
        redis.unlink(requestKey).catch(() => undefined),
        // A PNG stored just before the deadline whose answer came too late (one stored later expires by itself within seconds).
        redis.unlink(livePreviewPngKey(redisKeyPrefix, jobId)).catch(() => undefined),
      ]);
      // Whatever a worker still makes (or made just now, its answer not yet here) nobody will read.
      const dropped = finished.then((result) => dropPng(redis, result)).catch(() => undefined);
      if (callerGone?.aborted) {
        // A worker has it (its lock refuses the removal): the slot is held until it is done.
        if (!removed) stillRendering(dropped);
        throw new PreviewAbandoned();
      }
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

/** The PNG a worker stored for a preview nobody waits for any more (else it stays until its TTL). */
async function dropPng(redis: Redis, result: unknown): Promise<void> {
  const outcome = LivePreviewResult.safeParse(result);
  if (outcome.success && outcome.data.outcome === 'rendered') await redis.unlink(outcome.data.pngKey);
}

/** The caller stopped waiting for its preview: there is nobody to answer. */
export class PreviewAbandoned extends Error {
  override name = 'PreviewAbandoned';
}

/** `work`, or a rejection the moment `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const redisDown = (): never => {
  throw dependencyDown('redis');
};
