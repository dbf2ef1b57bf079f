import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildErrorsWorkbook, rowFileName, streamZip } from '@docgen/bulk';
import { LocalFileStorage } from '@docgen/storage';
import { runWhenMain, publish, type BenchOptions } from './report';
import { fixed, markdownTable, target } from './stats';

const FILE_BYTES = 40 * 1024;
const MiB = 1024 * 1024;

/** Peak RSS above the starting RSS while a bulk ZIP of `rows` stored files is assembled into storage. */
async function assemble(rows: number) {
  const dir = await mkdtemp(path.join(tmpdir(), 'docgen-bench-zip-'));
  try {
    const storage = new LocalFileStorage(dir);
    // PDFs barely compress; random bytes stand in for them.
    for (let row = 2; row < rows + 2; row++) await storage.put(`rows/${row}.pdf`, randomBytes(FILE_BYTES));
    const failures = Array.from({ length: Math.ceil(rows / 20) }, (_, i) => ({ row: i * 20 + 2, error: `Missing required token "client_name"` }));
    global.gc?.();
    const start = process.memoryUsage().rss;
    let peak = start;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const began = performance.now();
    const entries = Array.from({ length: rows }, (_, i) => ({
      name: rowFileName(i + 2, 'pdf'),
      open: async () => (await storage.open(`rows/${i + 2}.pdf`)).stream,
    }));
    const bytes = await storage.putStream('bulk.zip', streamZip(entries, { name: 'errors.xlsx', data: () => buildErrorsWorkbook(failures) }));
    const seconds = (performance.now() - began) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    return { rows, zipMiB: bytes / MiB, seconds, growthMiB: (peak - start) / MiB };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Bulk ZIP assembly: memory for 10,000 rows against memory for 100. */
export async function runBulkZipBench(options: BenchOptions) {
  const [small, large] = options.smoke ? [10, 50] : [100, 10_000];
  await assemble(small); // warm-up: modules, code paths
  const baseline = await assemble(small);
  const big = await assemble(large);
  options.log(`${small} rows: +${fixed(baseline.growthMiB)} MiB; ${large} rows: +${fixed(big.growthMiB)} MiB`);
  const body = [
    `The render worker's assembly step on its own: ${FILE_BYTES / 1024} KiB stored files (standing in for PDFs), streamed one`,
    'after another into a ZIP streamed into storage (local driver), plus errors.xlsx with one',
    'failed row in twenty. "Peak RSS growth" is the most the process grew above its RSS',
    'before the assembly, sampled every 5 ms.',
    '',
    markdownTable(
      ['rows', 'ZIP MiB', 'seconds', 'rows/s', 'peak RSS growth MiB'],
      [baseline, big].map((run, i) => [
        `${run.rows}${i === 0 ? ' (baseline)' : ''}`,
        fixed(run.zipMiB),
        fixed(run.seconds, 2),
        fixed(run.rows / run.seconds, 0),
        fixed(run.growthMiB),
      ]),
    ),
    '',
    target(
      `memory stays flat: ${large} rows need less than the ZIP's own size and less than 100 MiB`,
      `+${fixed(big.growthMiB)} MiB for a ${fixed(big.zipMiB)} MiB ZIP (${small} rows: +${fixed(baseline.growthMiB)} MiB)`,
      big.growthMiB < Math.min(100, big.zipMiB),
    ),
  ].join('\n');
  publish(options, 'bulk-zip', 'Bulk ZIP: memory for 10,000 rows', body);
  return { baseline, big };
}

runWhenMain(module, runBulkZipBench);
