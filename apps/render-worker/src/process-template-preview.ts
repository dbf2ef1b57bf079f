import type { Job } from 'bullmq';
import { ConversionFailedError, ConverterCrashedError } from '@docgen/converter';
import type { Database } from '@docgen/db';
import type { Logger } from '@docgen/observability';
import { TemplatePreviewJob } from '@docgen/queue';
import { templateVersionPreviewKey, type FileStorage } from '@docgen/storage';
import { markPreview, versionForPreview } from '@docgen/templates';
import { printableTemplate } from '@docgen/templating';
import type { DocxToPdf } from './converter';
import { Deadline, isTimeout } from './deadline';
import { firstPagePng } from './first-page-png';
import type { HtmlPrinter } from './html-printer';

export interface TemplatePreviewDeps {
  db: Database;
  storage: FileStorage;
  converter: DocxToPdf;
  templateFile: (fileKey: string) => Promise<Buffer>;
  /** An HTML template's preview is printed by Chromium from its HTML, as its documents are. */
  templateHtml?: (key: string) => Promise<string>;
  printer?: HtmlPrinter;
  logger: Logger;
  renderTimeoutMs: number;
}

/**
 * Renders a template version's first page as uploaded (tags visible) once: the stored DOCX
 * → PDF on the warm pool → PNG with pdftoppm → storage; then the version (and the template,
 * when it is the published one) says `ready` (markPreview, packages/templates). A template
 * LibreOffice cannot render says `failed` with the reason at once; other failures are
 * retried and say `failed` after the last attempt. A job without a version is the
 * published version's.
 */
export async function processTemplatePreview(job: Job<TemplatePreviewJob>, deps: TemplatePreviewDeps): Promise<string> {
  const { templateId, version } = TemplatePreviewJob.parse(job.data);
  const template = await versionForPreview(deps.db, templateId, version);
  if (!template) return 'gone';
  const log = deps.logger.child({ templateId, version: template.version, attempt: job.attemptsMade + 1 });
  const deadline = new Deadline(Date.now() + deps.renderTimeoutMs, deps.renderTimeoutMs);
  const started = performance.now();
  try {
    deadline.awaitingTurn();
    const onStarted = () => deadline.turnTaken();
    const pdf =
      template.htmlFileKey && deps.printer && deps.templateHtml
        ? await deps.printer.toPdf(printableTemplate(await deps.templateHtml(template.htmlFileKey)), { deadline, log, onStarted })
        : await deps.converter.toPdf(await deps.templateFile(template.fileKey), { deadline, log, onStarted });
    const png = await firstPagePng(pdf, { timeoutMs: Math.max(1_000, deadline.remainingMs()) });
    await deps.storage.put(templateVersionPreviewKey(template.organizationId, templateId, template.version), png);
    await markPreview(deps.db, templateId, template.version, 'ready', null);
    log.info({ ms: Math.round(performance.now() - started), bytes: png.length }, 'template preview ready');
    return 'ready';
  } catch (error) {
    // Out of time in line for a busy converter or printer (or given one too late) is the worker's load, retried like its other failures.
    const templateFault = isTimeout(error) ? !deadline.outOfTimeByLoad : error instanceof ConversionFailedError;
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (!templateFault && !lastAttempt) {
      log.warn({ err: error }, 'template preview attempt failed; will retry');
      throw error;
    }
    const reason = templateFault
      ? (error as Error).message
      : error instanceof ConverterCrashedError
        ? 'LibreOffice stopped while converting the template, on every attempt; check it for content LibreOffice cannot handle'
        : 'the render worker could not render it; upload the template again';
    if (!templateFault) log.warn({ err: error }, 'template preview failed on its last attempt');
    await markPreview(deps.db, templateId, template.version, 'failed', reason);
    log.info({ reason }, 'template preview failed');
    return 'failed';
  } finally {
    deadline.dispose();
  }
}
