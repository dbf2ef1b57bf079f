import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { bullPrefix } from './queues';

export const TEMPLATE_IMPORT_QUEUE = 'template-imports';
export const TEMPLATE_PREVIEW_QUEUE = 'template-previews';

/**
 * HTML → DOCX for an upload that waits on it. The HTML (the bytes as uploaded, up to the
 * upload limit) waits under `htmlKey`, a Redis key that expires by itself, so job hashes
 * and event streams stay small. A worker that takes the job after `deadlineAt` does
 * nothing: the upload has already been refused.
 */
export const TemplateImportJob = z.object({ organizationId: z.uuid(), htmlKey: z.string(), deadlineAt: z.int().positive() });
export type TemplateImportJob = z.output<typeof TemplateImportJob>;

/**
 * What the worker answers: where the DOCX waits (a Redis key that expires by itself, so
 * an upload that gave up leaves nothing behind), or the reason the HTML was refused.
 */
export const TemplateImportResult = z.discriminatedUnion('outcome', [
  // warnings: what the upload is told about the HTML (text no installed font can print).
  z.object({ outcome: z.literal('converted'), docxKey: z.string(), warnings: z.array(z.string()).optional() }),
  z.object({ outcome: z.literal('refused'), message: z.string() }),
  z.object({ outcome: z.literal('expired') }),
]);
export type TemplateImportResult = z.output<typeof TemplateImportResult>;

/** Where an import's HTML and its DOCX wait for the other side, under the deployment's prefix. */
export const templateImportHtmlKey = (redisKeyPrefix: string, jobId: string) => `${redisKeyPrefix}template-import:${jobId}:html`;
export const templateImportDocxKey = (redisKeyPrefix: string, jobId: string) => `${redisKeyPrefix}template-import:${jobId}:docx`;

/** Kept a few minutes after they end, so an upload that starts waiting late still finds the outcome. */
export const TEMPLATE_IMPORT_JOB_OPTIONS: JobsOptions = { attempts: 1, removeOnComplete: { age: 300 }, removeOnFail: { age: 300 } };

export function createTemplateImportQueue(connection: ConnectionOptions | Redis, redisKeyPrefix: string): Queue<TemplateImportJob> {
  return new Queue<TemplateImportJob>(TEMPLATE_IMPORT_QUEUE, {
    connection,
    prefix: bullPrefix(redisKeyPrefix),
    defaultJobOptions: TEMPLATE_IMPORT_JOB_OPTIONS,
  });
}

/** The first page of a stored template as a PNG, rendered once; the job id is the template id. */
/** `version` absent: the template's published version (jobs queued before versions existed). */
export const TemplatePreviewJob = z.object({ templateId: z.uuid(), version: z.number().int().min(1).optional() });
export type TemplatePreviewJob = z.output<typeof TemplatePreviewJob>;
export const previewJobId = (job: TemplatePreviewJob) =>
  job.version === undefined ? `preview.${job.templateId}` : `preview.${job.templateId}.v${job.version}`;

export const TEMPLATE_PREVIEW_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 2_000 },
  // Gone once done, so a preview asked for again (its file lost) can be queued again under the same id.
  removeOnComplete: true,
  removeOnFail: { age: 24 * 3600 },
};

export function createTemplatePreviewQueue(connection: ConnectionOptions | Redis, redisKeyPrefix: string): Queue<TemplatePreviewJob> {
  return new Queue<TemplatePreviewJob>(TEMPLATE_PREVIEW_QUEUE, {
    connection,
    prefix: bullPrefix(redisKeyPrefix),
    defaultJobOptions: TEMPLATE_PREVIEW_JOB_OPTIONS,
  });
}

/** What BullMQ writes as the reason of a job whose worker stopped under it (its lock lapsed) once too often. */
const STALLED_REASON = 'stalled more than allowable limit';

/** KEYS: the queue's failed set, the job's hash; ARGV: the job id, STALLED_REASON. 0: not failed; 1: failed, its stall count cleared; 2: failed by stalling. */
const TAKE_UP_FAILED = `
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local reason = redis.call('HGET', KEYS[2], 'failedReason')
if reason and string.find(reason, ARGV[2], 1, true) then return 2 end
redis.call('HDEL', KEYS[2], 'stc')
return 1`;

/**
 * Whether a preview job has failed for good, and how, read and acted on in one step: a job
 * that failed otherwise has its stall count (BullMQ's `stc`) cleared for its retry, which
 * resets its attempts but not that count (one stall in an earlier life would make its first in
 * the next one "more than allowable"). A job another caller retried first, which a worker may
 * be running already, is left alone. The retry that follows is a second step: a job another
 * caller retried, and that ran and failed for good again in between (seconds of backoff at the
 * least), is retried without this judgement; accepted.
 */
export async function takeUpFailed(queue: Queue<TemplatePreviewJob>, jobId: string): Promise<'not-failed' | 'failed' | 'stalled'> {
  const client = (await queue.getBackend().client) as unknown as Redis;
  const state = await client.eval(TAKE_UP_FAILED, 2, queue.toKey('failed'), queue.toKey(jobId), jobId, STALLED_REASON);
  return state === 2 ? 'stalled' : state === 1 ? 'failed' : 'not-failed';
}

/**
 * Queues the preview of a template version; a preview already queued or running is not queued
 * twice. A job of that id that failed for good is kept a day for inspection and would make the
 * add a no-op, the preview pending all that time. If its worker died under it (twice: BullMQ's
 * stall limit), it is not run again: 'stalled' (the caller marks the preview failed; a template
 * that kills its worker would otherwise be rendered again at every poll). Any other failure
 * (the database down on its last attempt) is retried in place, which refuses atomically when
 * another caller was first, its stall count cleared as its attempts are.
 */
export async function queuePreview(queue: Queue<TemplatePreviewJob>, templateId: string, version?: number): Promise<'queued' | 'stalled'> {
  const data = version === undefined ? { templateId } : { templateId, version };
  const jobId = previewJobId(data);
  const failed = await queue.getJob(jobId);
  if (failed) {
    const state = await takeUpFailed(queue, jobId);
    if (state === 'stalled') return 'stalled';
    if (state === 'failed') {
      const retried = await failed.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true }).then(
        () => true,
        (error: unknown) => !/does not exist|Missing key/i.test(String(error)), // someone else retried it first; gone: queued anew below
      );
      if (retried) return 'queued';
    }
  }
  await queue.add('preview', data, { jobId });
  return 'queued';
}
