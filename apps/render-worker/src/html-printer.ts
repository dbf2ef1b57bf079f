import { BrowserPrinterPool, type PrinterEvent } from '@docgen/browser-printer';
import type { Logger } from '@docgen/observability';
import type { PrintableHtml } from '@docgen/templating';
import type { RenderWorkerConfig } from './config';
import type { ConversionContext } from './converter';

export interface HtmlPrinter {
  /** Rejects with RenderTimeoutError (or PrintTimeoutError) when the deadline passes first. */
  toPdf: (printable: PrintableHtml, context: ConversionContext) => Promise<Buffer>;
  alive: () => boolean;
  close: () => Promise<void>;
}

function printerEventLevel(event: PrinterEvent): 'warn' | 'info' | 'debug' {
  if (event.type === 'exited' && !event.expected) return 'warn';
  return event.type === 'page_freshened' ? 'debug' : 'info'; // every 100 documents a page: routine
}

/**
 * The warm Chromium that prints HTML templates, beside the LibreOffice pool: one browser,
 * HTML_PRINTER_PAGES pages, replaced after HTML_PRINTER_RECYCLE_AFTER documents (its successor
 * launched while it prints on) or when it dies. A print waits for a free page within the render's deadline.
 */
export async function startHtmlPrinter(config: RenderWorkerConfig, logger: Logger): Promise<HtmlPrinter> {
  const pool = new BrowserPrinterPool({
    pages: config.HTML_PRINTER_PAGES,
    timeoutMs: config.RENDER_TIMEOUT_MS,
    recycleAfter: config.HTML_PRINTER_RECYCLE_AFTER,
    executablePath: config.CHROMIUM_PATH,
    onEvent: (event: PrinterEvent) => logger[printerEventLevel(event)]({ ...event }, `html printer ${event.type}`),
  });
  await pool.start();
  return {
    toPdf: (printable, { deadline, log, onStarted }) => {
      deadline.check();
      const printing = pool.print(printable, {
        deadlineAt: deadline.at,
        onStarted: () => {
          onStarted?.();
          log.debug({ driver: 'chromium' }, 'printing started');
        },
      });
      return deadline.race(printing);
    },
    alive: () => pool.alive,
    close: () => pool.close(),
  };
}
