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
export const TemplatePreviewJob = z.object({
  templateId: z.uuid(),
  version: z.number().int().min(1).optional(),
  /** How many times the job was given another go after it failed for good (queuePreview). */
  requeues: z.number().int().min(0).optional(),
});
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

/** A preview whose job failed for good this often (its worker died on it each time) is given up. */
export const MAX_PREVIEW_REQUEUES = 2;

/**
 * Queues the preview of a template; a preview already queued or running is not queued twice.
 * A job of that id that failed for good (its worker stalled out, say) is kept a day for
 * inspection and would make the add a no-op, the preview pending all that time: it is given
 * another go instead (retried in place, which refuses atomically if another caller was first),
 * at most MAX_PREVIEW_REQUEUES times, so a template that kills its worker is not rendered again
 * at every poll. Returns false when it is given up.
 */
export async function queuePreview(queue: Queue<TemplatePreviewJob>, templateId: string, version?: number): Promise<boolean> {
  const data = version === undefined ? { templateId } : { templateId, version };
  const jobId = previewJobId(data);
  const failed = await queue.getJob(jobId);
  if (failed && (await failed.isFailed())) {
    const requeues = failed.data.requeues ?? 0;
    if (requeues >= MAX_PREVIEW_REQUEUES) return false;
    await failed.updateData({ ...failed.data, requeues: requeues + 1 });
    await failed.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true }).catch(() => undefined); // someone else retried it first
    return true;
  }
  await queue.add('preview', data, { jobId });
  return true;
}
