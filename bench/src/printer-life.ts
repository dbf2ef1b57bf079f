import { BrowserPrinterPool, type PrintRequest } from '@docgen/browser-printer';
import { fillHtml, prepareHtmlTemplate } from '@docgen/templating';
import { LETTER_HTML_TEMPLATE, letterInput } from './documents';
import { chromiumCpuSeconds } from './html-printing';
import { publish, runWhenMain, type BenchOptions } from './report';
import { fixed, markdownTable, ratio, runClosedLoop } from './stats';

const PAGES = 2;
const TIMEOUT_MS = 120_000;

export interface LifeBlock {
  /** Documents each page of either pool has printed by the end of this block. */
  printsPerPage: number;
  /** Chromium CPU ms a print in this block: pages that keep one window, and pages freshened every 100 documents (the default). */
  keptMs: number;
  freshenedMs: number;
}

async function chromiumCpuMsPerPrint(pool: BrowserPrinterPool, documents: PrintRequest[], count: number, offset: number): Promise<number> {
  const before = chromiumCpuSeconds();
  await runClosedLoop(count, PAGES, (index) => pool.print(documents[(offset + index) % documents.length]!).then(() => undefined));
  return ((chromiumCpuSeconds() - before) * 1000) / count;
}

/**
 * A long-lived browser's cost a print: two pools (one browser, 2 pages, never recycled) print
 * the e2e letter in alternating blocks, one whose pages keep their window from the first
 * document to the last (as every page did before), one whose pages get a fresh window every
 * 100 documents (the pool's default). Alternating blocks put both under the same machine
 * noise; only the pool printing runs, so the Chromium CPU of a block is that pool's.
 */
export async function runPrinterLifeBench(options: BenchOptions): Promise<LifeBlock[]> {
  const prepared = prepareHtmlTemplate(LETTER_HTML_TEMPLATE);
  const documents = Array.from({ length: 50 }, (_, i) => fillHtml(prepared.html, prepared.variables, letterInput(i)));
  const kept = new BrowserPrinterPool({ pages: PAGES, timeoutMs: TIMEOUT_MS, freshenPageAfter: Infinity });
  const freshened = new BrowserPrinterPool({ pages: PAGES, timeoutMs: TIMEOUT_MS });
  await Promise.all([kept.start(), freshened.start()]);
  const blockSize = options.smoke ? 4 : 200;
  const blockCount = options.smoke ? 2 : 12;
  const blocks: LifeBlock[] = [];
  try {
    for (let block = 0; block < blockCount; block++) {
      const offset = block * blockSize;
      const keptMs = await chromiumCpuMsPerPrint(kept, documents, blockSize, offset);
      const freshenedMs = await chromiumCpuMsPerPrint(freshened, documents, blockSize, offset);
      blocks.push({ printsPerPage: ((block + 1) * blockSize) / PAGES, keptMs, freshenedMs });
      options.log(`block ${block + 1}: kept ${fixed(keptMs, 1)} ms, freshened ${fixed(freshenedMs, 1)} ms a print`);
    }
  } finally {
    await Promise.all([kept.close(), freshened.close()]);
  }
  const mean = (pick: (block: LifeBlock) => number) => blocks.reduce((sum, block) => sum + pick(block), 0) / blocks.length;
  const [keptMean, freshenedMean] = [mean((block) => block.keptMs), mean((block) => block.freshenedMs)];
  const rows = blocks.map((block) => [block.printsPerPage, fixed(block.keptMs, 1), fixed(block.freshenedMs, 1), ratio(block.freshenedMs, block.keptMs)]);
  rows.push(['all blocks', fixed(keptMean, 1), fixed(freshenedMean, 1), ratio(freshenedMean, keptMean)]);
  const body = [
    `Two Chromium pools (one browser, ${PAGES} pages, never recycled) print the e2e letter as an`,
    `HTML template (filled beforehand), ${PAGES} at a time, in alternating blocks of ${blockSize}: the`,
    "baseline keeps each page's window from its first document to its last; the other gives a",
    'page a fresh window (a navigation to about:blank) every 100 documents, as the pool does by',
    "default. Chromium CPU ms a print (its processes' user + system, from /proc), by how many",
    'documents each page had printed at the end of the block.',
    '',
    markdownTable(['documents a page', 'one window (baseline)', 'fresh window every 100', 'vs baseline'], rows),
  ].join('\n');
  publish(options, 'printer-life', 'HTML printing: a fresh window', body);
  return blocks;
}

runWhenMain(module, runPrinterLifeBench);
