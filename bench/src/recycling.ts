import { BrowserPrinterPool } from '@docgen/browser-printer';
import { WarmConverterPool } from '@docgen/converter';
import { fillHtml, prepareHtmlTemplate } from '@docgen/templating';
import { LETTER_HTML_TEMPLATE, letterInput, renderedDocuments } from './documents';
import { allProcesses, descendantsOf } from './process-cpu';
import { publish, runWhenMain, type BenchOptions } from './report';
import { MEMORY_SCRATCH_DIR } from './scratch';
import { fixed, markdownTable, percentile, runClosedLoop } from './stats';

/** Two clients for each instance or page: one working, one waiting, as the worker keeps its engines busy under load. */
const CLIENTS = 4;
/** Often enough for several recycles a block; the worker's defaults are 500 (LibreOffice) and 5,000 (Chromium). */
const RECYCLE_AFTER = 100;
/** A document this slow waited for something other than the engine's work on it. */
const STALL_MS = 250;

/** A pool as this bench drives it: started, asked for one document at a time by each client, closed. */
interface Engine {
  start(): Promise<void>;
  document(): Promise<unknown>;
  close(): Promise<void>;
  /** Every instance or browser serving and none starting or stopping, told by the pool. */
  full(): boolean;
}

interface Subject {
  name: string;
  /** The pool's engine processes of this process that run now, one each: more means one is starting or stopping. */
  running(): number;
  /** Engines a full pool runs. */
  perPool: number;
  make(recycleAfter: number, onRecycled: () => void): Engine;
}

const ownProcesses = (comm: (name: string) => boolean, directOnly: boolean) =>
  descendantsOf(process.pid, allProcesses()).filter((stat) => comm(stat.comm) && (!directOnly || stat.ppid === process.pid)).length;

/** Two instances of 2 a pool; an instance is counted by its UNO bridge (one each, from its start to its end). */
function libreOffice(): Subject {
  const { letter } = renderedDocuments();
  return {
    name: 'LibreOffice',
    perPool: 2,
    running: () => ownProcesses((comm) => comm.startsWith('python'), false),
    make: (recycleAfter, onRecycled) => {
      const pool = new WarmConverterPool({
        size: 2,
        timeoutMs: 60_000,
        recycleAfter,
        scratchDir: MEMORY_SCRATCH_DIR,
        onEvent: (event) => event.type === 'recycled' && onRecycled(),
      });
      return { start: () => pool.start(), document: () => pool.convert(letter, 'docx', 'pdf'), close: () => pool.close(), full: () => pool.liveCount === 2 };
    },
  };
}

/** One browser of 2 pages a pool, as the worker's; a browser is counted by its main process, a child of this one. */
function chromium(): Subject {
  const template = prepareHtmlTemplate(LETTER_HTML_TEMPLATE);
  const html = fillHtml(template.html, template.variables, letterInput());
  return {
    name: 'Chromium',
    perPool: 1,
    running: () => ownProcesses((comm) => comm.startsWith('chrom'), true),
    make: (recycleAfter, onRecycled) => {
      const pool = new BrowserPrinterPool({ pages: 2, timeoutMs: 60_000, recycleAfter, onEvent: (event) => event.type === 'recycled' && onRecycled() });
      return { start: () => pool.start(), document: () => pool.print(html), close: () => pool.close(), full: () => pool.alive };
    },
  };
}

interface PoolResult {
  latencies: number[];
  seconds: number;
  recycles: number;
}

const noResult = (): PoolResult => ({ latencies: [], seconds: 0, recycles: 0 });

/** Two pools of one engine, one never recycled, driven in alternating blocks so both see the same machine. */
async function compare(subject: Subject, options: BenchOptions, blockSize: number, blockCount: number, recycleAfter: number) {
  const results = { kept: noResult(), recycled: noResult() };
  const kept = subject.make(1_000_000, () => (results.kept.recycles += 1));
  const recycled = subject.make(recycleAfter, () => (results.recycled.recycles += 1));
  // Each block starts once both pools are full and nothing starts or stops, so no recycle's work spills into the next.
  const settled = async () => {
    const busy = () => subject.running() > 2 * subject.perPool || !kept.full() || !recycled.full();
    for (let waited = 0; busy() && waited < 30_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  const block = async (engine: Engine, result: PoolResult) => {
    const run = await runClosedLoop(blockSize, CLIENTS, async () => {
      const t0 = performance.now();
      await engine.document();
      result.latencies.push(performance.now() - t0);
    });
    result.seconds += run.seconds;
  };
  await Promise.all([kept.start(), recycled.start()]);
  try {
    await Promise.all([block(kept, noResult()), block(recycled, noResult())]); // warm-up
    await settled();
    results.recycled.recycles = 0;
    for (let i = 0; i < blockCount; i++) {
      await block(kept, results.kept);
      await block(recycled, results.recycled);
      await settled();
      options.log(`${subject.name} block ${i + 1}: ${results.recycled.recycles} recycles so far`);
    }
  } finally {
    await Promise.all([kept.close(), recycled.close()]);
  }
  return results;
}

/** Medians over `trials` fresh one-instance pools, made alternately with and without the bridge's warm-up conversion. */
async function firstConversions(trials: number) {
  const { letter } = renderedDocuments();
  const runs = { cold: [] as number[][], warm: [] as number[][] };
  for (let trial = 0; trial < trials; trial++)
    for (const warmUp of [false, true]) {
      const pool = new WarmConverterPool({ size: 1, timeoutMs: 60_000, warmUp, scratchDir: MEMORY_SCRATCH_DIR });
      const times = [performance.now()];
      await pool.start();
      times.push(performance.now());
      try {
        for (let i = 0; i < 3; i++) {
          await pool.convert(letter, 'docx', 'pdf');
          times.push(performance.now());
        }
      } finally {
        await pool.close();
      }
      (warmUp ? runs.warm : runs.cold).push(times.slice(1).map((time, i) => time - times[i]!));
    }
  const medians = (rows: number[][]) =>
    rows[0]!.map((_, column) =>
      percentile(
        rows.map((row) => row[column]!).sort((a, b) => a - b),
        50,
      ),
    );
  return { cold: medians(runs.cold), warm: medians(runs.warm) };
}

/**
 * What recycling an engine costs the documents behind it, for LibreOffice and for Chromium:
 * two pools of each make the e2e letter's PDF (LibreOffice from the filled DOCX, Chromium from
 * the filled HTML template), four clients in a closed loop, in alternating blocks: the baseline
 * never recycles; the other recycles each instance or browser after RECYCLE_AFTER documents.
 */
export async function runRecyclingBench(options: BenchOptions) {
  const blockSize = options.smoke ? 8 : 400;
  const blockCount = options.smoke ? 1 : 6;
  const recycleAfter = options.smoke ? 3 : RECYCLE_AFTER;
  const libreOfficeResults = await compare(libreOffice(), options, blockSize, blockCount, recycleAfter);
  const chromiumResults = await compare(chromium(), options, blockSize, blockCount, recycleAfter);
  const trials = options.smoke ? 1 : 8;
  const first = await firstConversions(trials);
  const row = (name: string, result: PoolResult) => {
    const sorted = [...result.latencies].sort((a, b) => a - b);
    return [
      name,
      result.recycles,
      fixed(sorted.length / result.seconds),
      fixed(percentile(sorted, 50), 0),
      fixed(percentile(sorted, 99), 0),
      fixed(sorted.at(-1)!, 0),
      sorted.filter((ms) => ms > STALL_MS).length,
    ];
  };
  const body = [
    `Two pools of each engine make the e2e letter's PDF, ${CLIENTS} clients in a closed loop, in alternating blocks of`,
    `${blockSize} documents (${blockCount} each): LibreOffice pools of 2 warm instances (scratch files in memory) convert the`,
    'filled DOCX; Chromium pools of one browser with 2 pages print the filled HTML template. The baseline never recycles; the',
    `other recycles each instance or browser after ${recycleAfter} documents, as the render worker does after`,
    '`CONVERTER_RECYCLE_AFTER` (500) and `HTML_PRINTER_RECYCLE_AFTER` (5,000), so its cost shows: a LibreOffice recycle every',
    `${recycleAfter / 2} documents of the pool, a Chromium one every ${recycleAfter}. Time per document from the call to the PDF,`,
    `waiting for an instance or page included; "stalled" counts those over ${STALL_MS} ms. After each block of the recycled`,
    'pool the next block waits until nothing is starting or stopping.',
    '',
    markdownTable(
      ['pool', 'recycles', 'PDF/s', 'p50 ms', 'p99 ms', 'max ms', 'stalled'],
      [
        row('LibreOffice, never recycled (baseline)', libreOfficeResults.kept),
        row(`LibreOffice, recycled every ${recycleAfter}`, libreOfficeResults.recycled),
        row('Chromium, never recycled (baseline)', chromiumResults.kept),
        row(`Chromium, recycled every ${recycleAfter}`, chromiumResults.recycled),
      ],
    ),
    '',
    `A fresh LibreOffice instance (a pool of one, as a recycled instance's successor starts), made ${trials} times each way,`,
    'alternately: the time to start, then its first three conversions of the letter one after another (medians). The',
    "baseline reports ready once LibreOffice answers; the other once it has also converted the bridge's small warm-up DOCX",
    '(`warmUp`, on by default).',
    '',
    markdownTable(
      ['instance', 'start ms', '1st conversion ms', '2nd ms', '3rd ms'],
      [
        ['ready when LibreOffice answers (baseline)', ...first.cold.map((ms) => fixed(ms, 0))],
        ['ready after a warm-up conversion', ...first.warm.map((ms) => fixed(ms, 0))],
      ],
    ),
  ].join('\n');
  publish(options, 'recycling', 'Recycling LibreOffice and Chromium: what the documents behind it wait', body);
  return { libreOffice: libreOfficeResults, chromium: chromiumResults, first };
}

runWhenMain(module, runRecyclingBench);
