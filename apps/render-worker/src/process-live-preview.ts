import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { ConversionFailedError, ConverterCrashedError } from '@docgen/converter';
import type { Logger } from '@docgen/observability';
import { LIVE_PREVIEW_PNG_KEPT_AFTER_DEADLINE_MS, LivePreviewJob, LivePreviewRequest, livePreviewPngKey, type LivePreviewResult } from '@docgen/queue';
import type { GuardedFetchOptions } from '@docgen/security';
import { RenderInputError, checkInput, fillHtml, renderDocx, type TemplateVariable } from '@docgen/templating';
import type { DocxToPdf } from './converter';
import { Deadline, isTimeout } from './deadline';
import { fetchImages, type ImageLimits } from './fetch-images';
import { firstPagePng } from './first-page-png';
import type { HtmlPrinter } from './html-printer';
import type { TakeImageFetch } from './image-fetch-budget';

/** The page's longer side in pixels: an A4 page is 778 x 1100, sharp at twice the width the UI shows it. */
export const LIVE_PREVIEW_LONG_SIDE_PX = 1100;

export interface LivePreviewDeps {
  redis: Redis;
  redisKeyPrefix: string;
  converter: DocxToPdf;
  templateFile: (fileKey: string) => Promise<Buffer>;
  templateHtml?: (key: string) => Promise<string>;
  printer?: HtmlPrinter;
  logger: Logger;
  imageFetch: Omit<GuardedFetchOptions, 'method' | 'headers' | 'body'>;
  imageLimits?: ImageLimits;
  imageFetchBudget?: (organizationId: string, deadline: Deadline) => TakeImageFetch;
  maxOutputBytes?: number;
  expressionTimeoutMs?: number;
}

/**
 * The first page of a template filled with an input, for a person waiting in a gateway:
 * the same checks and limits as a document (input schema, images through the outbound
 * guard and the organisation's fetch budget, expression time, output size), then the same
 * printer (Chromium for HTML templates, the warm LibreOffice otherwise, ahead of renders
 * waiting for an instance), then pdftoppm for page 1. The PNG waits in Redis under a key
 * that expires; nothing is written to PostgreSQL or storage. What is wrong with the input
 * or template is an answer ("invalid"); a job failure means the worker could not do the
 * work (the gateway then answers 503).
 */
export async function processLivePreview(job: Job<LivePreviewJob>, deps: LivePreviewDeps): Promise<LivePreviewResult> {
  const { organizationId, requestKey, deadlineAt } = LivePreviewJob.parse(job.data);
  const takenAt = Date.now();
  // The gateway has already answered: rendering now would only cost an instance.
  if (takenAt >= deadlineAt) return { outcome: 'expired' };
  const [raw] = await Promise.all([deps.redis.get(requestKey), deps.redis.unlink(requestKey)]);
  if (!raw) return { outcome: 'expired' };
  const { source, input } = LivePreviewRequest.parse(JSON.parse(raw));
  const log = deps.logger.child({ previewJobId: job.id, organizationId, templateId: source.templateId });
  const timeoutMs = deadlineAt - job.timestamp;
  const deadline = new Deadline(deadlineAt, timeoutMs);
  // Its time counts from the request: the wait in the queue was the workers' load.
  deadline.awaitingTurn(job.timestamp);
  deadline.turnTaken();
  const started = performance.now();
  try {
    const variables = source.variables as unknown as TemplateVariable[];
    const options = { locale: source.locale, maxOutputBytes: deps.maxOutputBytes, expressionTimeoutMs: deps.expressionTimeoutMs };
    checkInput(variables, input);
    const images = await fetchImages(variables, input, deps.imageFetch, deadline, deps.imageLimits, deps.imageFetchBudget?.(organizationId, deadline));
    const context = { deadline, log, urgent: true, onStarted: () => deadline.turnTaken() };
    let pdf: Buffer;
    if (source.htmlFileKey && deps.printer && deps.templateHtml) {
      const printable = fillHtml(await deps.templateHtml(source.htmlFileKey), variables, input, images, options);
      deadline.check();
      deadline.awaitingTurn();
      pdf = await deps.printer.toPdf(printable, context);
    } else {
      const docx = renderDocx(await deps.templateFile(source.fileKey), variables, input, images, { ...options, compress: false });
      deadline.check();
      deadline.awaitingTurn();
      pdf = await deps.converter.toPdf(docx, context);
    }
    const printed = performance.now();
    const png = await deadline.race(firstPagePng(pdf, { longSidePx: LIVE_PREVIEW_LONG_SIDE_PX, timeoutMs: Math.max(1, deadline.remainingMs()) }));
    const pngKey = livePreviewPngKey(deps.redisKeyPrefix, job.id!);
    await deps.redis.set(pngKey, png, 'PX', Math.max(1_000, deadlineAt + LIVE_PREVIEW_PNG_KEPT_AFTER_DEADLINE_MS - Date.now()));
    const ms = (from: number, to = performance.now()) => Math.round(to - from);
    log.info({ ms: ms(started), print_ms: ms(started, printed), raster_ms: ms(printed), bytes: png.length }, 'live preview rendered');
    return { outcome: 'rendered', pngKey };
  } catch (error) {
    // A time-out is the template's only when the worker had a fair share of the time for it: one that
    // spent its time waiting in the queue or for an instance (busy or just-started workers) is asked for again (503).
    if (deadline.timedOutByLoad(error)) throw error;
    const invalid = problemOf(error, timeoutMs);
    if (!invalid) throw error;
    log.info({ reason: invalid.message }, 'live preview refused');
    return { outcome: 'invalid', ...invalid };
  } finally {
    deadline.dispose();
  }
}

/** What is wrong with the input or template, for the person typing; undefined for the worker's own failures. */
function problemOf(error: unknown, timeoutMs: number): { message: string; errors: { path: string; message: string }[] } | undefined {
  if (error instanceof RenderInputError) return { message: error.message, errors: error.problems };
  if (isTimeout(error)) {
    return {
      message: `The preview took longer than ${Math.round(timeoutMs / 1000)} s; check the template for a broken expression or fewer, smaller images`,
      errors: [],
    };
  }
  if (error instanceof ConversionFailedError) return { message: `The document could not be converted to PDF: ${error.message}`, errors: [] };
  // Asked again, it would crash a fresh instance as likely: each try costs a LibreOffice restart.
  if (error instanceof ConverterCrashedError)
    return { message: 'LibreOffice stopped while converting the preview; check the template for content it cannot handle', errors: [] };
  return undefined;
}
