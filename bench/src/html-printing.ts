import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BrowserPrinterPool } from '@docgen/browser-printer';
import { WarmConverterPool } from '@docgen/converter';
import { fillHtml, htmlToDocx, prepareDocxTemplate, prepareHtmlTemplate, renderDocx } from '@docgen/templating';
import { repoRoot } from '@docgen/testing';
import { descendantCpuSeconds } from './process-cpu';
import type { BenchOptions } from './report';
import { fixed, markdownTable, ratio, runClosedLoop, type Run } from './stats';

const TIMEOUT_MS = 120_000;
const CONCURRENCY = 2;

export interface HtmlPathRun extends Run {
  /** CPU ms per document of the engine's processes (Chromium's or soffice.bin's). */
  engineCpuMs: number;
  /** CPU ms per document of this process (filling the template, driving the engine). */
  fillCpuMs: number;
}

/** The sample invoice with 12 rows: what `npm start` uploads, filled as a customer would. */
function invoiceInput(): Record<string, unknown> {
  const data = JSON.parse(readFileSync(path.join(repoRoot, 'examples', 'invoice-data.json'), 'utf8')) as Record<string, unknown>;
  const items = Array.from({ length: 12 }, (_, i) => ({ description: `Line item ${i + 1}`, quantity: i + 1, price: `${i + 1}.00` }));
  return { ...data, items };
}

/** CPU seconds so far of every Chromium process below this one (the browser and its renderers, living or reaped). */
export const chromiumCpuSeconds = (): number => descendantCpuSeconds([process.pid], /chrom/i);

async function measure(count: number, engineCpu: () => number, operation: () => Promise<unknown>): Promise<HtmlPathRun> {
  const engineBefore = engineCpu();
  const selfBefore = process.cpuUsage();
  const run = await runClosedLoop(count, CONCURRENCY, async () => void (await operation()));
  await new Promise((resolve) => setTimeout(resolve, 300)); // idle-time work a document leaves behind counts against it
  const self = process.cpuUsage(selfBefore);
  return { ...run, engineCpuMs: ((engineCpu() - engineBefore) * 1000) / count, fillCpuMs: (self.user + self.system) / 1000 / count };
}

/**
 * An HTML template's PDF both ways, in this run, 2 documents in flight: the Chromium pool (one
 * browser, 2 pages) printing the filled HTML, and the LibreOffice path HTML templates took
 * before (the DOCX converted from the HTML at upload, filled, converted by a warm pool of 2).
 * Each document is filled from the template, so fill time counts on both sides.
 */
export async function compareHtmlPrinting(options: BenchOptions): Promise<{ chromium: HtmlPathRun; libreoffice: HtmlPathRun; table: string }> {
  const prepared = prepareHtmlTemplate(readFileSync(path.join(repoRoot, 'examples', 'sample-invoice.html')));
  const docxTemplate = prepareDocxTemplate(await htmlToDocx(Buffer.from(prepared.docxSource, 'utf8'), { timeoutMs: TIMEOUT_MS })).file;
  const input = invoiceInput();
  const printer = new BrowserPrinterPool({ pages: CONCURRENCY, timeoutMs: TIMEOUT_MS, recycleAfter: 100_000 });
  const converter = new WarmConverterPool({ size: CONCURRENCY, timeoutMs: TIMEOUT_MS, recycleAfter: 100_000 });
  await Promise.all([printer.start(), converter.start()]);
  try {
    const viaChromium = () => printer.print(fillHtml(prepared.html, prepared.variables, input));
    const viaLibreOffice = () => converter.convert(renderDocx(docxTemplate, prepared.variables, input, new Map(), { compress: false }), 'docx', 'pdf');
    for (let i = 0; i < 4; i++) await Promise.all([viaChromium(), viaLibreOffice()]); // warm-up, untimed
    // A smoke run too prints enough that Chromium's CPU shows in /proc's 10 ms ticks (two small prints did not always).
    const count = options.smoke ? 8 : 60;
    const libreoffice = await measure(count, () => descendantCpuSeconds(converter.pids, 'soffice.bin'), viaLibreOffice);
    const chromium = await measure(count, chromiumCpuSeconds, viaChromium);
    options.log(`html: chromium ${fixed(chromium.perSecond, 2)}/s, libreoffice ${fixed(libreoffice.perSecond, 2)}/s`);
    const row = (label: string, run: HtmlPathRun, baseline: HtmlPathRun | undefined) => [
      label,
      run.count,
      fixed(run.perSecond, 2),
      fixed(run.p50, 0),
      fixed(run.p95, 0),
      fixed(run.engineCpuMs, 1),
      fixed(run.fillCpuMs, 1),
      fixed(run.engineCpuMs + run.fillCpuMs, 1),
      baseline ? ratio(run.engineCpuMs + run.fillCpuMs, baseline.engineCpuMs + baseline.fillCpuMs) : '1.00×',
    ];
    const table = markdownTable(
      ['path', 'n', 'docs/s', 'p50 ms', 'p95 ms', 'engine CPU ms / doc', 'fill + driver CPU ms / doc', 'total CPU ms / doc', 'CPU vs LibreOffice'],
      [
        row('LibreOffice: HTML → DOCX at upload, DOCX → PDF (baseline)', libreoffice, undefined),
        row('Chromium pool: filled HTML → PDF', chromium, libreoffice),
      ],
    );
    return { chromium, libreoffice, table };
  } finally {
    await Promise.all([printer.close(), converter.close()]);
  }
}
