import { randomUUID } from 'node:crypto';
import { WarmConverterPool } from '@docgen/converter';
import { batchDocx, prepareDocxTemplate, renderDocx, storedDocxPackage, type TemplateVariable } from '@docgen/templating';
import { pdfText } from '@docgen/testing';

import { LETTER_TEMPLATE, letterInput } from './documents';
import { descendantCpuSeconds } from './process-cpu';
import { runWhenMain, publish, type BenchOptions } from './report';
import { MEMORY_SCRATCH_DIR } from './scratch';
import { fixed, markdownTable, ratio } from './stats';

const BATCH_SIZES = [1, 4, 10] as const;

/** The e2e letter filled as the worker fills it; every fourth runs to a second page (60 rows). */
function filledLetters(count: number): Buffer[] {
  const prepared = prepareDocxTemplate(LETTER_TEMPLATE);
  const file = storedDocxPackage(prepared.file);
  return Array.from({ length: count }, (_, i) => {
    const input = letterInput(i);
    const items = input.items as unknown[];
    return renderDocx(file, prepared.variables as TemplateVariable[], i % 4 === 1 ? { ...input, items: [...items, ...items, ...items] } : input, new Map(), {
      compress: false,
    });
  });
}

/** One batch through LibreOffice and back out as one PDF per document (size 1: the document alone, as the worker converts it). */
async function convertBatch(pool: WarmConverterPool, documents: Buffer[]): Promise<Buffer[]> {
  if (documents.length === 1) return [await pool.convert(documents[0]!, 'docx', 'pdf')];
  const marks = documents.map((_, i) => `docgenpart${i}x${randomUUID().replaceAll('-', '')}`);
  const batch = batchDocx(documents, marks);
  if (!batch) throw new Error('the letters could not be batched');
  return pool.convertParts(batch, marks, { sections: true });
}

interface BatchRun {
  /** soffice.bin CPU ms per document. */
  libreOfficeCpuMs: number;
  /** This process's CPU ms per document: writing the batch, reading the PDFs. */
  ownCpuMs: number;
  /** Wall ms per document, one batch at a time. */
  wallMs: number;
}

/**
 * LibreOffice's fixed cost per conversion, paid once for several documents: the letters
 * converted alone (as the worker does) against in batches of 4 and 10, one warm instance, one
 * batch at a time, in rotating blocks; each batched PDF checked against the same letter alone
 * (its pages and its text) before anything is timed.
 */
export async function runBatchedConversionBench(options: BenchOptions) {
  const perBlock = options.smoke ? 20 : 40;
  const blocks = options.smoke ? 1 : 6;
  const letters = filledLetters(perBlock);
  const pool = new WarmConverterPool({ size: 1, timeoutMs: 120_000, recycleAfter: 100_000, scratchDir: MEMORY_SCRATCH_DIR });
  await pool.start();
  const runs: Record<number, BatchRun[]> = Object.fromEntries(BATCH_SIZES.map((size) => [size, []]));
  try {
    const alone: Buffer[] = [];
    for (const letter of letters.slice(0, Math.max(...BATCH_SIZES))) alone.push(await pool.convert(letter, 'docx', 'pdf'));
    for (const size of BATCH_SIZES.filter((size) => size > 1)) {
      const parts = await convertBatch(pool, letters.slice(0, size));
      parts.forEach((part, i) => {
        if (pdfText(part) !== pdfText(alone[i]!)) throw new Error(`letter ${i} of a batch of ${size} reads differently from the letter alone`);
      });
    }
    for (let block = 0; block < blocks; block++) {
      for (const size of [...BATCH_SIZES.slice(block % BATCH_SIZES.length), ...BATCH_SIZES.slice(0, block % BATCH_SIZES.length)]) {
        const libreOfficeBefore = descendantCpuSeconds(pool.pids, 'soffice.bin');
        const ownBefore = process.cpuUsage();
        const started = performance.now();
        for (let at = 0; at < letters.length; at += size) await convertBatch(pool, letters.slice(at, at + size));
        const own = process.cpuUsage(ownBefore);
        runs[size]!.push({
          libreOfficeCpuMs: ((descendantCpuSeconds(pool.pids, 'soffice.bin') - libreOfficeBefore) * 1000) / letters.length,
          ownCpuMs: (own.user + own.system) / 1000 / letters.length,
          wallMs: (performance.now() - started) / letters.length,
        });
      }
    }
  } finally {
    await pool.close();
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const results = Object.fromEntries(
    BATCH_SIZES.map((size) => [
      size,
      {
        libreOfficeCpuMs: median(runs[size]!.map((run) => run.libreOfficeCpuMs)),
        ownCpuMs: median(runs[size]!.map((run) => run.ownCpuMs)),
        wallMs: median(runs[size]!.map((run) => run.wallMs)),
      },
    ]),
  ) as Record<(typeof BATCH_SIZES)[number], BatchRun>;
  const alone = results[1];
  const rows = BATCH_SIZES.map((size) => {
    const run = results[size];
    const total = run.libreOfficeCpuMs + run.ownCpuMs;
    return [
      size === 1 ? 'alone (as the worker converts)' : `batches of ${size}`,
      fixed(run.libreOfficeCpuMs),
      fixed(run.ownCpuMs),
      fixed(total),
      ratio(total, alone.libreOfficeCpuMs + alone.ownCpuMs),
      fixed(run.wallMs),
    ];
  });
  const body = [
    `The e2e letter filled for ${perBlock} clients (every fourth with 60 rows, two pages), converted by one warm`,
    'LibreOffice instance (scratch files in memory), one batch at a time, in rotating blocks (median',
    `of ${blocks}). A batch is one DOCX with each letter in a section of its own (page numbers restarting)`,
    "and a bookmark at its start (`batchDocx` in @docgen/templating), loaded and laid out once, each letter's",
    "pages (its section's, found by their page style) then exported as a PDF of its own",
    "(`WarmConverterPool.convertParts` with `sections`). Each batch size's letters were first checked",
    'to read the same as the letters converted alone.',
    '',
    markdownTable(
      ['conversion', 'LibreOffice CPU ms / letter', 'this process CPU ms / letter (batch, files)', 'CPU ms / letter', 'vs alone', 'wall ms / letter'],
      rows,
    ),
  ].join('\n');
  publish(options, 'batched-conversion', 'Batched conversion: several documents in one LibreOffice call', body);
  return results;
}

runWhenMain(module, runBatchedConversionBench);
