import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { z } from 'zod';
import { DELIVERY_JOB_OPTIONS } from '@docgen/webhooks';

export const RENDER_QUEUE = 'render';
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-deliveries';
export const BULK_ASSEMBLY_QUEUE = 'bulk-assembly';

/**
 * A render job names a document and the generation it was queued for. A job that follows a
 * first take from the render list (render-takes.ts) also says what that take spent:
 * `takesBefore` (takes, including ones whose worker stopped) and `attemptsBefore` (failed attempts).
 */
export const RenderJob = z.object({
  documentId: z.uuid(),
  generation: z.int().positive(),
  takesBefore: z.int().min(0).optional(),
  attemptsBefore: z.int().min(0).optional(),
});
export type RenderJob = z.output<typeof RenderJob>;

/**
 * One event to one endpoint; its retries are BullMQ attempts of the same job.
 * `attemptsBefore`: attempts an earlier job made before Redis lost it (recovered from PostgreSQL).
 */
export const DeliveryJob = z.object({ eventId: z.uuid(), endpointId: z.uuid(), attemptsBefore: z.int().min(0).optional() });
export type DeliveryJob = z.output<typeof DeliveryJob>;
export const deliveryJobId = (job: Pick<DeliveryJob, 'eventId' | 'endpointId'>) => `${job.eventId}.${job.endpointId}`;

/** Once every row of a bulk job is done, its ZIP is assembled; the job id is the bulk job id. */
export const BulkAssemblyJob = z.object({ bulkJobId: z.uuid() });
export type BulkAssemblyJob = z.output<typeof BulkAssemblyJob>;

/** BullMQ keys live under the deployment's prefix, beside the rate-limit keys. */
export const bullPrefix = (redisKeyPrefix: string) => `${redisKeyPrefix}bull`;

/**
 * A finished render job is forgotten at once: the document row holds the outcome, and a job
 * for the same generation queued again stands down when it finds the document finished.
 * (Keeping completed jobs cost every completion Redis work to record and trim them.)
 */
export const RENDER_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** The job id makes enqueueing idempotent while a job waits or runs: one job per document generation. */
export const renderJobId = (job: RenderJob) => `${job.documentId}.${job.generation}`;

export function createRenderQueue(connection: ConnectionOptions | import('ioredis').Redis, redisKeyPrefix: string): Queue<RenderJob> {
  return new Queue<RenderJob>(RENDER_QUEUE, { connection, prefix: bullPrefix(redisKeyPrefix), defaultJobOptions: RENDER_JOB_OPTIONS });
}

export function createDeliveryQueue(connection: ConnectionOptions | import('ioredis').Redis, redisKeyPrefix: string): Queue<DeliveryJob> {
  return new Queue<DeliveryJob>(WEBHOOK_DELIVERY_QUEUE, { connection, prefix: bullPrefix(redisKeyPrefix), defaultJobOptions: DELIVERY_JOB_OPTIONS });
}

export const BULK_ASSEMBLY_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

export function createBulkAssemblyQueue(connection: ConnectionOptions | import('ioredis').Redis, redisKeyPrefix: string): Queue<BulkAssemblyJob> {
  return new Queue<BulkAssemblyJob>(BULK_ASSEMBLY_QUEUE, { connection, prefix: bullPrefix(redisKeyPrefix), defaultJobOptions: BULK_ASSEMBLY_JOB_OPTIONS });
}
