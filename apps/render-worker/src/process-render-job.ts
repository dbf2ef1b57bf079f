import { UnrecoverableError, type Job } from 'bullmq';
import { ConversionFailedError, ConverterCrashedError, type PdfStandard } from '@docgen/converter';
import type { Database, Document } from '@docgen/db';
import {
  RenderingAttempt,
  deleteSupersededFiles,
  finishRendering,
  type DocumentFinishes,
  type FinishOutcome,
  templateFilesRemoved,
  timeoutMessage,
  waitForRetry,
  type Announce,
  type RenderingDocument,
  type Take,
} from '@docgen/documents';
import type { Logger } from '@docgen/observability';
import { RENDER_JOB_OPTIONS, RenderJob } from '@docgen/queue';
import type { GuardedFetchOptions } from '@docgen/security';
import { FileNotFoundError, documentFileKey, type FileStorage } from '@docgen/storage';
import { RenderInputError, checkInput, fillHtml, imageSources, renderDocx, type ImageSource, type TemplateVariable } from '@docgen/templating';
import { FinishingInputError } from '@docgen/finishing';
import type { DocxToPdf } from './converter';
import { Deadline, isTimeout } from './deadline';
import { fetchImageSources, type ImageLimits } from './fetch-images';
import { finishDocumentPdf, hasRenderSecrets, type FinishingDeps } from './finish-document';
import { renderMerge } from './render-merge';
import type { HtmlPrinter } from './html-printer';
import type { TakeImageFetch } from './image-fetch-budget';
import type { Turns } from '@docgen/runtime';

const MAX_RENDER_ATTEMPTS = RENDER_JOB_OPTIONS.attempts ?? 3;

export interface RenderDeps extends FinishingDeps {
  db: Database;
  storage: FileStorage;
  converter: DocxToPdf;
  /** The template file by its storage key (cached: template files never change). */
  templateFile: (fileKey: string) => Promise<Buffer>;
  /** HTML templates' PDFs: the stored HTML (cached) and the warm Chromium that prints it. */
  templateHtml?: (key: string) => Promise<string>;
  printer?: HtmlPrinter;
  announce: Announce;
  logger: Logger;
  renderTimeoutMs: number;
  imageFetch: Omit<GuardedFetchOptions, 'method' | 'headers' | 'body'>;
  imageLimits?: ImageLimits;
  /** Renders that fetch images, each holding up to MAX_IMAGE_BYTES_PER_DOCUMENT: a turn from before the fetch to the render's end (heavyRenders). */
  imageRenders?: Turns;
  /** IMAGE_FETCHES_PER_ORG, across workers; absent in tests that do not exercise it. */
  imageFetchBudget?: (organizationId: string, deadline: Deadline) => TakeImageFetch;
  /** MAX_OUTPUT_BYTES; absent in tests that do not exercise it. */
  maxOutputBytes?: number;
  /** EXPRESSION_TIMEOUT_MS: all of a document's expressions together. */
  expressionTimeoutMs?: number;
  onOutcome?: (outcome: 'ready' | 'failed' | 'retry' | 'stale', seconds: number) => void;
  /** RENDERING_MARK_AFTER_MS: a first attempt is marked `rendering` only once it has run this long (0: at once). */
  renderingMarkAfterMs: number;
  /** Finishes made together share a statement (a batch's documents end together); absent in tests: each finish alone. */
  finishes?: DocumentFinishes;
}

const finish = (deps: RenderDeps, doc: Document, outcome: FinishOutcome) =>
  deps.finishes ? deps.finishes.finish(doc, outcome) : finishRendering(deps.db, doc, outcome);

/** Why the last of a document's retryable attempts failed, for the person who asked for it. */
function finalRetryableFailure(error: unknown, waitedOnly: boolean, attempts: number, renderTimeoutMs: number): string {
  const times = attempts === 1 ? 'once' : `${attempts} times`;
  if (waitedOnly) return `The service was too busy to render this document within ${Math.round(renderTimeoutMs / 1000)} s, ${times}; please try again later`;
  if (error instanceof ConverterCrashedError) {
    return `Rendering failed after ${attempts} attempts: LibreOffice stopped while converting this document; check the template for content it cannot handle, or try again later`;
  }
  return `Rendering failed after ${attempts} attempts (${(error as Error).message}); please try again`;
}

/** What went wrong, for the person who can fix it; undefined when it is worth retrying. */
function userFacingFailure(error: unknown, renderTimeoutMs: number): string | undefined {
  if (error instanceof RenderInputError) return error.message;
  if (error instanceof FinishingInputError) return error.message;
  if (isTimeout(error)) return timeoutMessage(renderTimeoutMs);
  if (error instanceof ConversionFailedError) return `The document could not be converted to PDF: ${error.message}`;
  return undefined;
}

/**
 * A template file missing because the deleted-template sweep removed it (an older gateway's
 * retry during an upgrade): final, said plainly. A file missing for any other reason (storage
 * misconfigured on one replica, a store slow to show a new file) is retried as the worker's.
 */
async function sweptTemplateFailure(db: Database, doc: Pick<Document, 'templateId'>, error: unknown): Promise<string | undefined> {
  if (!(error instanceof FileNotFoundError) || !doc.templateId) return undefined;
  if (!(await templateFilesRemoved(db, doc.templateId).catch(() => false))) return undefined;
  return "This document's template was deleted and its files removed; send a new request for a template that exists";
}

/** One take of a document, from the render list or from a BullMQ job. */
export interface RenderTake {
  documentId: string;
  generation: number;
  /** This take's number for this document generation (1 for the first), counting takes whose worker stopped. */
  takes: number;
  /** Attempts that failed before this one. */
  attemptsMade: number;
  /** Attempts this generation gets in all. */
  attemptsAllowed: number;
}

/** A BullMQ job's take: its own counts, after what the render list's take before it spent. */
export function takeOfJob(job: Job<RenderJob>): RenderTake {
  const { documentId, generation, takesBefore = 0, attemptsBefore = 0 } = RenderJob.parse(job.data);
  // attemptsStarted counts every take, stalled ones too (the rest only guards its absence in older job records)
  const takes = takesBefore + Math.max(1, job.attemptsStarted ?? 1, job.attemptsMade + job.stalledCounter + 1);
  return { documentId, generation, takes, attemptsMade: attemptsBefore + job.attemptsMade, attemptsAllowed: attemptsBefore + (job.opts.attempts ?? 1) };
}

export const processRenderJob = (job: Job<RenderJob>, deps: RenderDeps) => renderDocument(takeOfJob(job), deps);

/**
 * Renders one document: fill the template once, convert once (for "both" the same DOCX is
 * kept and converted), store the files, then finish. Problems of the template or input
 * fail the document at once (UnrecoverableError); infrastructure problems (LibreOffice
 * crashed, storage hiccup) are thrown to be retried, and fail the document only on the last attempt.
 *
 * Each attempt has one deadline, RENDER_TIMEOUT_MS after the document went to rendering:
 * image fetches, waiting for a LibreOffice instance and the conversion all count against
 * it, and when it passes the document fails with the timeout message.
 */
export async function renderDocument(job: RenderTake, deps: RenderDeps): Promise<string> {
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  const phases = new PhaseTimer();
  const { documentId, generation } = job;
  // A first take (not a retry, not taken again after its worker stopped) writes `rendering` only if it runs long.
  const firstTake = deps.renderingMarkAfterMs > 0 && job.takes === 1 && job.attemptsMade === 0;
  const take: Take = firstTake ? { firstTake, markAfterMs: deps.renderingMarkAfterMs } : { firstTake, jobTakes: job.takes };
  const attempt = await RenderingAttempt.take(deps.db, documentId, generation, take);
  phases.end('start');
  if (!attempt) {
    deps.onOutcome?.('stale', seconds());
    return 'stale';
  }
  const taken = attempt.doc;
  const log = deps.logger.child({ documentId, generation, attempt: job.attemptsMade + 1 });
  const deadline = Deadline.after(taken.renderingStartedAt!, deps.renderTimeoutMs);
  try {
    const firstAttempt = job.takes === 1 && job.attemptsMade === 0;
    const files = await deadline.race(render(taken, deps, deadline, log, phases, firstAttempt));
    await forgetSecrets(deps, taken, log); // files stored: once the document reads ready, its passwords are gone
    const doc = attempt.current();
    const finished = await finish(deps, doc, { status: 'ready', files });
    attempt.end();
    phases.end('finish');
    await deps.announce(finished);
    phases.end('announce');
    if (finished) void cleanUpSuperseded(deps, doc, log);
    log.info({ files, seconds: seconds(), phases_ms: phases.durations }, 'document ready');
    deps.onOutcome?.('ready', seconds());
    return 'ready';
  } catch (error) {
    // Out of time in line for a converter, printer or fetch slot (or given one too late): retried, as any worker's own failure.
    const waitedOnly = deadline.timedOutByLoad(error);
    const failure = waitedOnly ? undefined : (userFacingFailure(error, deps.renderTimeoutMs) ?? (await sweptTemplateFailure(deps.db, taken, error)));
    if (failure === undefined) {
      // Counted (marked) first: the retry and the attempt limit read the count. (A final outcome's finish counts it.)
      const doc = (await attempt.mark().catch(() => undefined)) ?? taken;
      // The document's own count spans re-queues by the stuck-document sweep (each a new job with attempts of its own).
      const lastAttempt = doc.renderAttempts >= MAX_RENDER_ATTEMPTS || job.attemptsMade + 1 >= job.attemptsAllowed;
      if (!lastAttempt) {
        log.warn({ err: error }, 'render attempt failed; will retry');
        // Queued, not rendering, until the retry starts (a new attempt with its own deadline).
        await waitForRetry(deps.db, doc).catch((stateError: unknown) => log.warn({ err: stateError }, 'document left in rendering until its retry'));
        deps.onOutcome?.('retry', seconds());
        throw error;
      }
    }
    const errorMessage =
      failure ?? finalRetryableFailure(error, waitedOnly, Math.max(job.attemptsMade + 1, attempt.current().renderAttempts), deps.renderTimeoutMs);
    const errors = error instanceof RenderInputError && error.problems.length > 0 ? error.problems : undefined;
    await forgetSecrets(deps, taken, log);
    const doc = attempt.current();
    const finished = await finish(deps, doc, { status: 'failed', errorMessage, errors });
    attempt.end();
    await deps.announce(finished);
    if (finished) void cleanUpSuperseded(deps, doc, log);
    log.info({ errorMessage }, 'document failed');
    deps.onOutcome?.('failed', seconds());
    throw new UnrecoverableError(errorMessage);
  } finally {
    attempt.end();
    deadline.dispose();
  }
}

/** The render is over: its passwords, if it had any, go (their TTL is the fallback should this fail). */
async function forgetSecrets(deps: RenderDeps, doc: RenderingDocument, log: Logger): Promise<void> {
  if (!hasRenderSecrets(doc)) return;
  await deps.renderSecrets?.delete(doc.id).catch((error: unknown) => log.warn({ err: error }, 'PDF passwords not deleted; their TTL removes them'));
}

/** After the job's answer: the files of generations this one replaced. */
async function cleanUpSuperseded(deps: RenderDeps, doc: RenderingDocument, log: Logger): Promise<void> {
  try {
    const deleted = await deleteSupersededFiles(deps.storage, doc);
    if (deleted) log.info({ deleted }, 'files of superseded generations deleted');
  } catch (error) {
    log.warn({ err: error }, 'files of superseded generations not deleted; retention removes them later');
  }
}

/** Milliseconds spent in each step of a render, for the "document ready" log line. */
class PhaseTimer {
  readonly durations: Record<string, number> = {};
  private last = performance.now();

  end(phase: string): void {
    const now = performance.now();
    this.durations[phase] = Math.round((now - this.last) * 10) / 10;
    this.last = now;
  }
}

async function render(doc: RenderingDocument, deps: RenderDeps, deadline: Deadline, log: Logger, phases: PhaseTimer, firstAttempt: boolean): Promise<string[]> {
  const { template } = doc;
  if (!template) return store(doc, deps, deadline, phases, [['pdf', await renderMerge(doc, deps, deadline)]]); // a merge (render-merge.ts)
  const variables = template.variables as TemplateVariable[];
  const input = doc.inputJson as Record<string, unknown>;
  checkInput(variables, input); // input problems first: no fetch for a document that cannot render
  const sources = imageSources(variables, input);
  deadline.awaitingTurn();
  const imageTurn = deps.imageRenders && sources.length > 0 ? await deps.imageRenders.acquire({ until: deadline.signal }) : undefined;
  deadline.turnTaken();
  try {
    return await renderTemplate(doc, template, variables, input, sources, deps, deadline, log, phases, firstAttempt);
  } finally {
    imageTurn?.();
  }
}

async function renderTemplate(
  doc: RenderingDocument,
  template: NonNullable<RenderingDocument['template']>,
  variables: TemplateVariable[],
  input: Record<string, unknown>,
  sources: ImageSource[],
  deps: RenderDeps,
  deadline: Deadline,
  log: Logger,
  phases: PhaseTimer,
  firstAttempt: boolean,
): Promise<string[]> {
  const locale = template.locale;
  const images = await fetchImageSources(sources, deps.imageFetch, deadline, deps.imageLimits, deps.imageFetchBudget?.(doc.organizationId, deadline));
  // An HTML template's PDF is printed by Chromium from its own HTML; DOCX output (and the PDF of
  // an HTML template stored before that HTML was kept) comes from its DOCX, as for DOCX templates.
  // PDF/A is LibreOffice's to write, so an archival PDF of an HTML template still goes that way.
  const printsHtml = doc.outputFormat !== 'docx' && !doc.pdfStandard && Boolean(template.htmlFileKey && deps.printer && deps.templateHtml);
  const outputs: ['pdf' | 'docx', Buffer][] = [];
  let docx: Buffer | undefined;
  if (doc.outputFormat !== 'pdf' || !printsHtml) {
    const file = await deps.templateFile(template.fileKey);
    deadline.check();
    // synchronous: checked before and after; a DOCX kept for download is compressed, one only converted is not
    docx = renderDocx(file, variables, input, images, {
      compress: doc.outputFormat !== 'pdf',
      locale,
      maxOutputBytes: deps.maxOutputBytes,
      expressionTimeoutMs: deps.expressionTimeoutMs,
    });
    deadline.check();
    if (doc.outputFormat !== 'pdf') outputs.push(['docx', docx]);
  }
  let printable;
  if (printsHtml) {
    const html = await deps.templateHtml!(template.htmlFileKey!);
    deadline.check();
    printable = fillHtml(html, variables, input, images, { locale, maxOutputBytes: deps.maxOutputBytes, expressionTimeoutMs: deps.expressionTimeoutMs });
    deadline.check();
  }
  phases.end('fill');
  if (doc.outputFormat !== 'docx') {
    // One finishing step whatever printed the PDF (watermark, metadata, encryption: @docgen/finishing).
    deadline.awaitingTurn();
    const onStarted = () => deadline.turnTaken();
    const pdf = printable
      ? await deps.printer!.toPdf(printable, { deadline, log, onStarted })
      : await deps.converter.toPdf(docx!, {
          deadline,
          log,
          onStarted,
          pdfStandard: (doc.pdfStandard ?? undefined) as PdfStandard | undefined,
          // A retry converts alone: if a batch-mate made the shared call outlast the deadline, it cannot again.
          batchKey: firstAttempt ? `${doc.organizationId}/${template.fileKey}` : undefined,
        });
    deadline.turnTaken(); // after a batch's shared call, which reports no start of its own
    phases.end('convert');
    deadline.check();
    outputs.push(['pdf', await finishDocumentPdf(pdf, doc, deps)]);
  }
  return store(doc, deps, deadline, phases, outputs);
}

async function store(doc: RenderingDocument, deps: RenderDeps, deadline: Deadline, phases: PhaseTimer, outputs: ['pdf' | 'docx', Buffer][]): Promise<string[]> {
  phases.end('finish-pdf');
  deadline.check(); // nothing is stored for an attempt that has already failed
  await Promise.all(outputs.map(([format, data]) => deps.storage.put(documentFileKey(doc, format), data)));
  phases.end('store');
  return outputs.map(([format]) => format).sort();
}
