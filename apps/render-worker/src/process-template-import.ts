import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { ConversionFailedError } from '@docgen/converter';
import type { Logger } from '@docgen/observability';
import { TemplateImportJob, templateImportDocxKey, type TemplateImportResult } from '@docgen/queue';
import { TemplateError, htmlToDocx, missingGlyphWarnings, type CoversCodePoint } from '@docgen/templating';
import type { DocxToPdf } from './converter';
import { Deadline, isTimeout } from './deadline';

/** Long enough for the waiting upload to read the DOCX; short enough that an abandoned one is soon gone. */
const DOCX_TTL_MS = 60_000;

export interface TemplateImportDeps {
  converter: DocxToPdf;
  redis: Redis;
  redisKeyPrefix: string;
  logger: Logger;
  /** This worker's fonts: text none of them can print is a warning for the upload. */
  fontCoverage?: () => Promise<CoversCodePoint>;
}

/**
 * HTML → DOCX for an upload waiting in a gateway: the template's own rewrite and
 * sanitising (packages/templating), then a warm LibreOffice. The DOCX is left in Redis
 * under a key that expires; the gateway checks it like any DOCX upload and stores it.
 * What is wrong with the HTML is an answer ("refused"), not a job failure; a job failure
 * means the worker could not do the work (the upload then answers 503).
 */
export async function processTemplateImport(job: Job<TemplateImportJob>, deps: TemplateImportDeps): Promise<TemplateImportResult> {
  const { organizationId, htmlKey, deadlineAt } = TemplateImportJob.parse(job.data);
  // The upload has already answered 503; converting now would only cost a LibreOffice.
  if (Date.now() >= deadlineAt) return { outcome: 'expired' };
  const html = await deps.redis.getBuffer(htmlKey);
  if (!html) return { outcome: 'expired' };
  const log = deps.logger.child({ importJobId: job.id, organizationId });
  const timeoutMs = deadlineAt - job.timestamp;
  const deadline = new Deadline(deadlineAt, timeoutMs);
  const started = performance.now();
  // Its time counts from the upload: the wait in the queue was the workers' load, as is any wait for an instance.
  deadline.awaitingTurn(job.timestamp);
  deadline.turnTaken();
  try {
    const docx = await htmlToDocx(html, {
      convert: (input, { inputFilter }) => {
        deadline.awaitingTurn();
        return deps.converter.htmlToDocx(input, inputFilter, { deadline, log, onStarted: () => deadline.turnTaken() });
      },
    });
    const docxKey = templateImportDocxKey(deps.redisKeyPrefix, job.id!);
    await deps.redis.set(docxKey, docx, 'PX', DOCX_TTL_MS);
    const warnings = deps.fontCoverage ? missingGlyphWarnings(html.toString('utf8'), await deps.fontCoverage()) : [];
    log.info({ ms: Math.round(performance.now() - started), bytes: docx.length, warnings: warnings.length }, 'HTML template converted');
    return { outcome: 'converted', docxKey, ...(warnings.length > 0 ? { warnings } : {}) };
  } catch (error) {
    // Out of time before LibreOffice even started, or given it too late (every instance busy):
    // the worker's capacity, not the HTML, so the job fails and the upload answers 503.
    const waitedOnly = deadline.timedOutByLoad(error);
    const message = waitedOnly ? undefined : refusal(error, timeoutMs);
    if (message === undefined) throw error;
    log.info({ reason: message }, 'HTML template refused');
    return { outcome: 'refused', message };
  } finally {
    deadline.dispose();
  }
}

/** What is wrong with the HTML, for the person who uploaded it; undefined for the worker's own failures. */
function refusal(error: unknown, timeoutMs: number): string | undefined {
  if (error instanceof TemplateError) return error.message;
  if (isTimeout(error)) {
    return `The HTML could not be converted to DOCX within ${Math.round(timeoutMs / 1000)} s; simplify it (fewer or smaller images, simpler tables) and upload it again`;
  }
  if (error instanceof ConversionFailedError)
    return `The HTML could not be converted to DOCX (${error.message}); check that it opens in a browser and upload it again`;
  return undefined;
}
