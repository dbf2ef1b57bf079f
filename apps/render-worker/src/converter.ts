import { convertOnce, convertPerCall, WarmConverterPool, type OutputFormat, type PdfStandard, type PoolEvent } from '@docgen/converter';
import type { Logger } from '@docgen/observability';
import { withoutCommentMarks } from '@docgen/templating';
import type { RenderWorkerConfig } from './config';
import type { Deadline } from './deadline';
import { PdfBatches } from './pdf-batches';
import { Turns } from '@docgen/runtime';

export interface ConversionContext {
  /** The render's deadline: waiting for an instance and converting must end by then. */
  deadline: Deadline;
  log: Logger;
  /** An archival PDF/A instead of a plain PDF. */
  pdfStandard?: PdfStandard;
  /** Called when LibreOffice starts on this conversion alone (after any wait for a free instance; a batch's shared call does not count). */
  onStarted?: () => void;
  /** Someone is waiting for this one (a live preview): it goes ahead of renders waiting for an instance. */
  urgent?: boolean;
  /** Plain PDFs with the same key (an organisation's template file) may share one LibreOffice call while they wait (CONVERTER_BATCH_SIZE, PdfBatches). */
  batchKey?: string;
}

export interface DocxToPdf {
  /** Rejects with RenderTimeoutError (or ConversionTimeoutError) when the deadline passes first. */
  toPdf: (docx: Buffer, context: ConversionContext) => Promise<Buffer>;
  /** An HTML upload opened with LibreOffice's import filter and stored as DOCX (template imports). */
  htmlToDocx: (html: Buffer, inputFilter: string, context: ConversionContext) => Promise<Buffer>;
  liveInstances: () => number;
  close: () => Promise<void>;
}

/** The warm pool or the per-call driver (CONVERTER_DRIVER); either converts a DOCX without its comment marks (withoutCommentMarks: LibreOffice as installed aborts on them). */
export async function startConverter(config: RenderWorkerConfig, logger: Logger, onPoolEvent?: (event: PoolEvent) => void): Promise<DocxToPdf> {
  const driver = await startDriver(config, logger, onPoolEvent);
  return { ...driver, toPdf: (docx, context) => driver.toPdf(withoutCommentMarks(docx), context) };
}

async function startDriver(config: RenderWorkerConfig, logger: Logger, onPoolEvent?: (event: PoolEvent) => void): Promise<DocxToPdf> {
  if (config.CONVERTER_DRIVER === 'per-call') {
    return {
      toPdf: (docx, { deadline, log, pdfStandard, onStarted }) => {
        deadline.check();
        onStarted?.(); // no instance to wait for: each call starts its own LibreOffice
        log.debug({ driver: 'per-call' }, 'conversion started');
        return deadline.race(convertPerCall(docx, 'pdf', Math.max(1, deadline.remainingMs()), pdfStandard));
      },
      htmlToDocx: (html, inputFilter, { deadline, onStarted }) => {
        deadline.check();
        onStarted?.();
        const timeoutMs = Math.max(1, deadline.remainingMs());
        return deadline.race(convertOnce(html, { from: 'html', inputFilter, to: 'docx:MS Word 2007 XML', timeoutMs }));
      },
      liveInstances: () => 0,
      close: async () => undefined,
    };
  }

  const pool = new WarmConverterPool({
    size: config.CONVERTER_POOL_SIZE,
    timeoutMs: config.RENDER_TIMEOUT_MS,
    recycleAfter: config.CONVERTER_RECYCLE_AFTER,
    onEvent: (event) => {
      const trouble = (event.type === 'exited' && !event.expected) || event.type === 'restart_failed';
      logger[trouble ? 'warn' : 'info']({ ...event }, `converter ${event.type}`);
      onPoolEvent?.(event);
    },
  });
  await pool.start();
  const turns = new Turns(config.CONVERTER_POOL_SIZE);
  const convert = async (
    input: Buffer,
    from: string,
    to: OutputFormat,
    { deadline, log, onStarted, pdfStandard, urgent }: ConversionContext,
    inputFilter?: string,
  ) => {
    deadline.check();
    const release = await turns.acquire({ until: deadline.signal, urgent });
    // LibreOffice gets only the time this job has left; the next job may go as soon
    // as the instance is free, while this one still reads its output.
    const conversion = pool.convert(input, from, to, {
      deadlineAt: deadline.at,
      inputFilter,
      pdfStandard,
      onInstanceTaken: (pid) => {
        onStarted?.();
        log.debug({ driver: 'warm', pid }, 'conversion started');
      },
      onInstanceFree: release,
    });
    conversion.then(release, release);
    return deadline.race(conversion);
  };
  const alone = (docx: Buffer, context: ConversionContext) => convert(docx, 'docx', 'pdf', context);
  const batches =
    config.CONVERTER_BATCH_SIZE > 1
      ? new PdfBatches(config.CONVERTER_BATCH_SIZE, {
          acquire: (until) => turns.acquire({ until }),
          convert: (docx, options) => pool.convert(docx, 'docx', 'pdf', options),
          convertParts: (docx, marks, options) => pool.convertParts(docx, marks, options),
          alone,
        })
      : undefined;
  return {
    toPdf: (docx, context) =>
      batches && context.batchKey && !context.pdfStandard && !context.urgent ? batches.toPdf(docx, context, context.batchKey) : alone(docx, context),
    htmlToDocx: (html, inputFilter, context) => convert(html, 'html', 'docx', context, inputFilter),
    liveInstances: () => pool.liveCount,
    close: () => pool.close(),
  };
}
