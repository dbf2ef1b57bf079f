import { randomUUID } from 'node:crypto';
import type { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { TemplateImportResult, templateImportHtmlKey, type TemplateImportJob } from '@docgen/queue';
import { TemplateError } from '@docgen/templating';
import { HttpError, dependencyDown } from '../errors';
import type { InFlightSlots } from './in-flight-slots';

/** After the job's deadline, how long the upload still waits for the worker's own timeout answer. */
const ANSWER_GRACE_MS = 2_000;
/** What a refused upload is told to wait: imports take about a second; the lease is only the worst case. */
const RETRY_AFTER_S = 2;

export interface HtmlImporterOptions {
  queue: Queue<TemplateImportJob>;
  events: QueueEvents;
  redis: Redis;
  /** TEMPLATE_IMPORTS_PER_ORG of them per organisation. */
  slots: InFlightSlots;
  redisKeyPrefix: string;
  /** How long a worker has to convert, counted from the upload (RENDER_TIMEOUT_MS). */
  timeoutMs: number;
}

/**
 * HTML → DOCX on a render worker (where LibreOffice lives), for an upload that waits:
 * at most TEMPLATE_IMPORTS_PER_ORG imports in flight per organisation across replicas (429
 * beyond), a job on the template-imports queue, and the answer within the deadline or
 * 503 with nothing stored. Throws TemplateError('invalid') for HTML the worker refused.
 */
export class HtmlImporter {
  constructor(private readonly options: HtmlImporterOptions) {}

  /** `onWarnings` hears what the worker found worth telling the uploader (text no font can print). */
  async toDocx(organizationId: string, html: Buffer, onWarnings?: (warnings: string[]) => void): Promise<Buffer> {
    const { slots, timeoutMs } = this.options;
    const perOrganization = slots.limit;
    const importId = randomUUID();
    const waitMs = timeoutMs + ANSWER_GRACE_MS;
    const taken = await slots.take(organizationId, importId, waitMs + 5_000).catch(redisDown);
    if (!taken) {
      throw new HttpError(
        'rate_limited',
        `This organisation already has ${perOrganization} HTML template upload${perOrganization === 1 ? '' : 's'} being converted; try again when one has finished`,
        { headers: { 'Retry-After': String(RETRY_AFTER_S) } },
      );
    }
    try {
      return await this.convert(organizationId, importId, html, waitMs, onWarnings);
    } finally {
      await slots.release(organizationId, importId).catch(() => undefined); // else its lease ends it
    }
  }

  private async convert(organizationId: string, importId: string, html: Buffer, waitMs: number, onWarnings?: (warnings: string[]) => void): Promise<Buffer> {
    const { queue, events, redis, redisKeyPrefix, timeoutMs } = this.options;
    const htmlKey = templateImportHtmlKey(redisKeyPrefix, importId);
    const job = await (async () => {
      await redis.set(htmlKey, html, 'PX', waitMs);
      return queue.add('import', { organizationId, htmlKey, deadlineAt: Date.now() + timeoutMs }, { jobId: importId });
    })().catch(redisDown);

    let outcome: TemplateImportResult;
    try {
      outcome = TemplateImportResult.parse(await job.waitUntilFinished(events, waitMs));
    } catch (error) {
      // Not taken, or taken and never answered: take it back so no worker spends a LibreOffice on it.
      await Promise.all([job.remove().catch(() => undefined), redis.del(htmlKey).catch(() => undefined)]);
      // BullMQ words its own time-out this way; anything else is the worker's job failing.
      if ((error as Error).message?.startsWith('Job wait')) {
        throw new HttpError(
          'dependency_unavailable',
          `No render worker converted the HTML template within ${Math.round(waitMs / 1000)} s; nothing was stored. Please try again shortly.`,
        );
      }
      throw new HttpError('dependency_unavailable', 'The render worker could not convert the HTML template; nothing was stored. Please try again shortly.');
    }
    if (outcome.outcome === 'refused') throw new TemplateError('invalid', outcome.message);
    if (outcome.outcome === 'expired')
      throw new HttpError('dependency_unavailable', 'No render worker converted the HTML template in time; nothing was stored. Please try again shortly.');
    const docx = await redis.getBuffer(outcome.docxKey).catch(redisDown);
    await redis.del(outcome.docxKey).catch(() => undefined);
    if (!docx) throw new HttpError('dependency_unavailable', 'The converted HTML template expired before it could be stored; please try again.');
    if (outcome.warnings?.length) onWarnings?.(outcome.warnings);
    return docx;
  }
}

const redisDown = (): never => {
  throw dependencyDown('redis');
};
