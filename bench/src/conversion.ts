import { execFileSync } from 'node:child_process';
import { convertPerCall, WarmConverterPool } from '@docgen/converter';
import { renderedDocuments } from './documents';
import { runWhenMain, publish, type BenchOptions } from './report';
import { fixed, markdownTable, ratio, runClosedLoop, target, type Run } from './stats';

const TIMEOUT_MS = 120_000;

const pageCount = (pdf: Buffer) => Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', ['-'], { input: pdf }).toString())?.[1] ?? NaN);

/**
 * The warm pool against the per-call libreoffice-convert driver: the same DOCX files, the
 * same concurrency, the same machine, one after the other in one run.
 */
export async function runConversionBench(options: BenchOptions) {
  const documents = renderedDocuments();
  const pool = new WarmConverterPool({ size: 2, timeoutMs: TIMEOUT_MS, recycleAfter: 100_000 });
  await pool.start();
  const rows: (string | number)[][] = [];
  const results: Record<string, { warm: Run; perCall: Run }> = {};
  try {
    for (const [name, docx] of Object.entries(documents) as ['letter' | 'report', Buffer][]) {
      // Warm-up, untimed: each instance converts once; the per-call driver runs once.
      const pdf = await pool.convert(docx, 'docx', 'pdf');
      await Promise.all([pool.convert(docx, 'docx', 'pdf'), pool.convert(docx, 'docx', 'pdf')]);
      await convertPerCall(docx, 'pdf', TIMEOUT_MS);
      const pages = pageCount(pdf);
      for (const concurrency of [1, 2]) {
        const warmCount = options.smoke ? 2 : name === 'letter' ? 200 : 30;
        const perCallCount = options.smoke ? 1 : name === 'letter' ? 12 : 6;
        const warm = await runClosedLoop(warmCount, concurrency, async () => void (await pool.convert(docx, 'docx', 'pdf')));
        const perCall = await runClosedLoop(perCallCount, concurrency, async () => void (await convertPerCall(docx, 'pdf', TIMEOUT_MS)));
        results[`${name}@${concurrency}`] = { warm, perCall };
        const label = `${name} (${pages} page${pages === 1 ? '' : 's'}, ${Math.round(docx.length / 1024)} KiB)`;
        rows.push([
          label,
          concurrency,
          'per-call (baseline)',
          perCall.count,
          fixed(perCall.perSecond, 2),
          fixed(perCall.p50, 0),
          fixed(perCall.p95, 0),
          '1.00×',
        ]);
        rows.push([
          label,
          concurrency,
          'warm pool',
          warm.count,
          fixed(warm.perSecond, 2),
          fixed(warm.p50, 0),
          fixed(warm.p95, 0),
          ratio(warm.perSecond, perCall.perSecond),
        ]);
        options.log(`${name} c=${concurrency}: warm ${fixed(warm.perSecond, 2)}/s, per-call ${fixed(perCall.perSecond, 2)}/s`);
      }
    }
  } finally {
    await pool.close();
  }
  const letter1 = results['letter@1']!;
  const letter2 = results['letter@2']!;
  const body = [
    'DOCX → PDF. Both drivers convert the same DOCX files (filled by our own render path),',
    'one after the other in this run; "concurrency" is the number of conversions in flight',
    '(the warm pool has 2 instances; the per-call driver starts one soffice per document).',
    '',
    markdownTable(['document', 'concurrency', 'driver', 'n', 'docs/s', 'p50 ms', 'p95 ms', 'throughput vs per-call'], rows),
    '',
    target(
      'warm pool ≥ 20× the per-call throughput on the one-page letter, concurrency 1',
      ratio(letter1.warm.perSecond, letter1.perCall.perSecond),
      letter1.warm.perSecond >= 20 * letter1.perCall.perSecond,
    ),
    target('the same at concurrency 2', ratio(letter2.warm.perSecond, letter2.perCall.perSecond), letter2.warm.perSecond >= 20 * letter2.perCall.perSecond),
  ].join('\n');
  publish(options, 'conversion', 'Conversion: warm pool vs per-call driver', body);
  return results;
}

runWhenMain(module, runConversionBench);
