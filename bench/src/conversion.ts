import { execFileSync } from 'node:child_process';
import { convertPerCall, WarmConverterPool, type ProfileTuning } from '@docgen/converter';
import { renderedDocuments } from './documents';
import { compareHtmlPrinting } from './html-printing';
import { FINISHING_INTRO, PDF_UA_INTRO, finishingCostTable, pdfUaCostTable } from './finishing-cost';
import { descendantCpuSeconds } from './process-cpu';
import { runWhenMain, publish, type BenchOptions } from './report';
import { MEMORY_SCRATCH_DIR } from './scratch';
import { fixed, markdownTable, ratio, runClosedLoop, summarize, target, type Run } from './stats';

const TIMEOUT_MS = 120_000;

/**
 * The LibreOffice set-ups compared, one instance each: the untuned profile (the baseline), the
 * tuned one, and the tuned one with its scratch files on a memory file system, as the
 * Kubernetes and Compose files run it (render-worker's /tmp); without one, the last is left out.
 */
type SetupName = 'untuned' | 'tuned' | 'tuned-tmpfs';
const SETUPS: { name: SetupName; label: string; profile: ProfileTuning; scratchDir?: string }[] = [
  { name: 'untuned', label: 'untuned (baseline)', profile: 'untuned' },
  { name: 'tuned', label: 'tuned', profile: 'tuned' },
  ...(MEMORY_SCRATCH_DIR
    ? [{ name: 'tuned-tmpfs' as const, label: 'tuned, scratch in memory (tmpfs)', profile: 'tuned' as const, scratchDir: MEMORY_SCRATCH_DIR }]
    : []),
];

const pageCount = (pdf: Buffer) => Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', ['-'], { input: pdf }).toString())?.[1] ?? NaN);

export interface ProfileRun extends Run {
  /** CPU ms of LibreOffice itself (soffice.bin, user + system) per conversion. */
  cpuMs: number;
}

type ProfileResults = Record<string, Partial<Record<SetupName, ProfileRun>> & { untuned: ProfileRun }>;

/**
 * The set-ups side by side: one instance each, in blocks that alternate (and whose order
 * rotates), the same DOCX, one conversion at a time. The CPU is soffice.bin's own (utime +
 * stime from /proc) from before a block until 300 ms after it, so idle-time work a conversion
 * leaves behind is counted against it.
 */
async function compareProfiles(documents: Record<'letter' | 'report', Buffer>, options: BenchOptions): Promise<ProfileResults> {
  const pools = new Map(
    SETUPS.map((setup) => [
      setup.name,
      new WarmConverterPool({
        size: 1,
        timeoutMs: TIMEOUT_MS,
        recycleAfter: 100_000,
        profile: setup.profile,
        scratchDir: setup.scratchDir,
      }),
    ]),
  );
  const results: ProfileResults = {};
  try {
    await Promise.all([...pools.values()].map((pool) => pool.start()));
    for (const [name, docx] of Object.entries(documents) as ['letter' | 'report', Buffer][]) {
      const rounds = options.smoke ? 1 : name === 'letter' ? 12 : 6;
      const block = options.smoke ? 2 : name === 'letter' ? 20 : 5;
      const runs = new Map(SETUPS.map((setup) => [setup.name, { latencies: [] as number[], seconds: 0, cpuSeconds: 0 }]));
      for (const pool of pools.values()) for (let i = 0; i < 3; i++) await pool.convert(docx, 'docx', 'pdf'); // warm-up, untimed
      for (let round = 0; round < rounds; round++) {
        const order = SETUPS.map((_, i) => SETUPS[(i + round) % SETUPS.length]!.name);
        for (const setup of order) {
          const pool = pools.get(setup)!;
          const cpuBefore = descendantCpuSeconds(pool.pids, 'soffice.bin');
          const latencies: number[] = [];
          const run = await runClosedLoop(block, 1, async () => {
            const t0 = performance.now();
            await pool.convert(docx, 'docx', 'pdf');
            latencies.push(performance.now() - t0);
          });
          if (!options.smoke) await new Promise((resolve) => setTimeout(resolve, 300));
          const total = runs.get(setup)!;
          total.cpuSeconds += descendantCpuSeconds(pool.pids, 'soffice.bin') - cpuBefore;
          total.seconds += run.seconds;
          total.latencies.push(...latencies);
        }
      }
      results[name] = Object.fromEntries(
        [...runs].map(([setup, { latencies, seconds, cpuSeconds }]) => [
          setup,
          { ...summarize(latencies, seconds), cpuMs: (cpuSeconds * 1000) / latencies.length },
        ]),
      ) as ProfileResults[string];
      options.log(`${name}: ${[...runs.keys()].map((setup) => `${setup} ${fixed(results[name]![setup]!.cpuMs)}`).join(', ')} CPU ms per conversion`);
    }
  } finally {
    await Promise.all([...pools.values()].map((pool) => pool.close()));
  }
  return results;
}

function profileTable(results: ProfileResults, pages: Record<string, number>): string {
  const rows = Object.entries(results).flatMap(([name, bySetup]) =>
    SETUPS.map((setup) => {
      const run = bySetup[setup.name]!;
      return [
        `${name} (${pages[name]} page${pages[name] === 1 ? '' : 's'})`,
        setup.label,
        run.count,
        fixed(run.perSecond, 2),
        fixed(run.p50, 0),
        fixed(run.p95, 0),
        fixed(run.cpuMs, 1),
        setup.name === 'untuned' ? '1.00×' : ratio(run.cpuMs, bySetup.untuned.cpuMs),
      ];
    }),
  );
  return markdownTable(['document', 'set-up', 'n', 'docs/s', 'p50 ms', 'p95 ms', 'LibreOffice CPU ms / conversion', 'CPU vs untuned'], rows);
}

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
  const pagesOf: Record<string, number> = {};
  const pdfs: Record<string, Buffer> = {};
  try {
    for (const [name, docx] of Object.entries(documents) as ['letter' | 'report', Buffer][]) {
      // Warm-up, untimed: each instance converts once; the per-call driver runs once.
      const pdf = await pool.convert(docx, 'docx', 'pdf');
      await Promise.all([pool.convert(docx, 'docx', 'pdf'), pool.convert(docx, 'docx', 'pdf')]);
      await convertPerCall(docx, 'pdf', TIMEOUT_MS);
      const pages = pageCount(pdf);
      pagesOf[name] = pages;
      pdfs[name] = pdf;
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
  const profiles = await compareProfiles(documents, options);
  const html = await compareHtmlPrinting(options);
  const finishing = await finishingCostTable(pdfs, options.smoke ? 2 : 30, options.log);
  const pdfUa = await pdfUaCostTable(documents, options.smoke ? 2 : 20, options.log);
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
    '',
    '### Tuned vs untuned LibreOffice profile',
    '',
    'The warm pool runs with the tuned profile by default (the table above, scratch files in this',
    "machine's TMPDIR): the settings of `packages/converter/src/performance-profile.ts`, and each",
    'document loaded into the frame of the one before. The Kubernetes and Compose files also put',
    "the render worker's /tmp, where LibreOffice writes and deletes several files per document, in",
    'memory. Here one instance of each set-up converts the same DOCX one at a time, in rotating',
    'blocks, in this run; the CPU is that of soffice.bin itself (user + system, from `/proc`).',
    '',
    profileTable(profiles, pagesOf),
    '',
    ...(['tuned', 'tuned-tmpfs'] as const).flatMap((setup) => {
      const run = profiles.letter![setup];
      if (!run) return [];
      const base = profiles.letter!.untuned.cpuMs;
      const label = SETUPS.find((s) => s.name === setup)!.label;
      return [
        target(
          `LibreOffice CPU per one-page PDF (letter) −20% against the untuned profile: ${label}`,
          `${fixed(base, 1)} → ${fixed(run.cpuMs, 1)} ms (${ratio(run.cpuMs, base)})`,
          run.cpuMs <= 0.8 * base,
        ),
      ];
    }),
    '',
    '### HTML templates: Chromium pool vs the LibreOffice HTML path',
    '',
    "An HTML template's PDF, 2 documents in flight, in this run: the sample invoice",
    '(`examples/sample-invoice.html`, 12 rows) filled and printed by the Chromium pool (one',
    'browser, 2 pages), against the path HTML templates took before: the DOCX LibreOffice made',
    'of the HTML at upload, filled and converted by a warm pool of 2. Engine CPU is that of the',
    "Chromium processes or of soffice.bin; fill + driver is this process's own.",
    '',
    html.table,
    '',
    '### Finishing cost per option',
    '',
    FINISHING_INTRO,
    '',
    finishing,
    '',
    PDF_UA_INTRO,
    '',
    pdfUa,
  ].join('\n');
  publish(options, 'conversion', 'Conversion: warm pool vs per-call driver', body);
  return { drivers: results, profiles, html: { chromium: html.chromium, libreoffice: html.libreoffice } };
}

runWhenMain(module, runConversionBench);
