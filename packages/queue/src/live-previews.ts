import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { bullPrefix } from './queues';

/**
 * Live previews (POST /templates/{id}/preview): the first page of a template filled with an
 * input, rendered by a render worker's warm pools for a gateway request that waits on it.
 * Nothing is stored: the request waits in a Redis key, the PNG comes back in another, both
 * expiring by themselves within seconds.
 */
export const LIVE_PREVIEW_QUEUE = 'live-previews';

/** What to fill: the template version the gateway resolved, and the input as sent. */
export const LivePreviewRequest = z.object({
  source: z.object({
    templateId: z.uuid(),
    version: z.int().positive(),
    fileKey: z.string(),
    htmlFileKey: z.string().nullable(),
    variables: z.array(z.record(z.string(), z.unknown())),
    locale: z.string(),
  }),
  input: z.record(z.string(), z.unknown()),
});
export type LivePreviewRequest = z.output<typeof LivePreviewRequest>;

/** The job names the request's key, so job hashes and event streams stay small. */
export const LivePreviewJob = z.object({ organizationId: z.uuid(), requestKey: z.string(), deadlineAt: z.int().positive() });
export type LivePreviewJob = z.output<typeof LivePreviewJob>;

/**
 * The worker's answer: where the PNG waits, what is wrong with the input or the template
 * (every problem, for the 422), or that the gateway had already given up.
 */
export const LivePreviewResult = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('rendered'), pngKey: z.string() }),
  z.object({ outcome: z.literal('invalid'), message: z.string(), errors: z.array(z.object({ path: z.string(), message: z.string() })) }),
  z.object({ outcome: z.literal('expired') }),
]);
export type LivePreviewResult = z.output<typeof LivePreviewResult>;

export const livePreviewRequestKey = (redisKeyPrefix: string, jobId: string) => `${redisKeyPrefix}live-preview:${jobId}:request`;
export const livePreviewPngKey = (redisKeyPrefix: string, jobId: string) => `${redisKeyPrefix}live-preview:${jobId}:png`;

/** How long past a job's deadline the gateway still waits for the worker's answer (a timeout it reports). */
export const LIVE_PREVIEW_ANSWER_GRACE_MS = 1_000;
/**
 * How long past the job's deadline its PNG stays: an in-time gateway reads it the moment the
 * answer comes, within the grace; one nobody reads any more is gone soon after.
 */
export const LIVE_PREVIEW_PNG_KEPT_AFTER_DEADLINE_MS = LIVE_PREVIEW_ANSWER_GRACE_MS + 4_000;

/** Kept a minute after they end, so a gateway that starts waiting late still finds the outcome; never retried (the person is waiting). */
export const LIVE_PREVIEW_JOB_OPTIONS: JobsOptions = { attempts: 1, removeOnComplete: { age: 60 }, removeOnFail: { age: 60 } };

export function createLivePreviewQueue(connection: ConnectionOptions | Redis, redisKeyPrefix: string): Queue<LivePreviewJob> {
  return new Queue<LivePreviewJob>(LIVE_PREVIEW_QUEUE, {
    connection,
    prefix: bullPrefix(redisKeyPrefix),
    defaultJobOptions: LIVE_PREVIEW_JOB_OPTIONS,
  });
}
