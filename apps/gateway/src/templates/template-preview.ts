import type { Readable } from 'node:stream';
import type { Queue } from 'bullmq';
import type { Database, Template } from '@docgen/db';
import { queuePreview, type TemplatePreviewJob } from '@docgen/queue';
import { FileNotFoundError, templatePreviewKey, type FileStorage } from '@docgen/storage';
import { HttpError, dependencyDown } from '../errors';

export type PreviewAnswer = { ready: true; stream: Readable; size: number } | { ready: false };

/**
 * The stored preview of a template, or the news that it is being prepared (it is queued
 * whenever it is asked for and not there: templates stored before previews existed, a
 * queue that lost its job, a file gone from storage). A preview that could not be
 * rendered is a 409 saying why; it is not tried again.
 */
export async function templatePreview(
  deps: { db: Database; storage: FileStorage; previews: Queue<TemplatePreviewJob> },
  template: Template,
): Promise<PreviewAnswer> {
  if (template.previewStatus === 'failed') {
    throw new HttpError('no_preview', `This template has no preview: its first page could not be rendered (${template.previewError ?? 'unknown reason'})`);
  }
  if (template.previewStatus === 'ready') {
    try {
      const { stream, size } = await deps.storage.open(templatePreviewKey(template.organizationId, template.id));
      return { ready: true, stream, size };
    } catch (error) {
      if (!(error instanceof FileNotFoundError)) throw error;
    }
  }
  await requestPreview(deps, template.id);
  return { ready: false };
}

/** Marks the preview pending and queues it (a job already queued is not queued twice). */
export async function requestPreview(deps: { db: Database; previews: Queue<TemplatePreviewJob> }, templateId: string): Promise<void> {
  // Plain SQL: the template itself has not changed, so its updated_at stays.
  await deps.db
    .$executeRaw`UPDATE templates SET preview_status = 'pending', preview_error = NULL WHERE id = ${templateId}::uuid AND preview_status IS DISTINCT FROM 'pending'`;
  await queuePreview(deps.previews, templateId).catch(() => {
    throw dependencyDown('redis');
  });
}
