import { execFileSync } from 'node:child_process';
import { convertPerCall, WarmConverterPool, type ProfileTuning } from '@docgen/converter';
import { renderedDocuments } from './documents';
import { descendantCpuSeconds } from './process-cpu';
import { runWhenMain, publish, type BenchOptions } from './report';
import { fixed, markdownTable, ratio, runClosedLoop, summarize, target, type Run } from './stats';

const TIMEOUT_MS = 120_000;

const TUNINGS: ProfileTuning[] = ['untuned', 'tuned'];

const pageCount = (pdf: Buffer) => Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', ['-'], { input: pdf }).toString())?.[1] ?? NaN);

export interface ProfileRun extends Run {
  /** CPU ms of LibreOffice itself (soffice.bin, user + system) per conversion. */
  cpuMs: number;
}

/**
 * Tuned against untuned profile (performance-profile.ts): one instance each, in blocks that
 * alternate (which goes first alternates too), the same DOCX, one conversion at a time. The
 * CPU is soffice.bin's own (utime + stime from /proc) from before a block until 300 ms after
 * it, so idle-time work a conversion leaves behind is counted against it.
 */
async function compareProfiles(documents: Record<'letter' | 'report', Buffer>, options: BenchOptions) {
  const pools = Object.fromEntries(
    TUNINGS.map((profile) => [profile, new WarmConverterPool({ size: 1, timeoutMs: TIMEOUT_MS, recycleAfter: 100_000, profile })]),
  ) as Record<ProfileTuning, WarmConverterPool>;
  const results: Record<string, Record<ProfileTuning, ProfileRun>> = {};
  try {
    await Promise.all(Object.values(pools).map((pool) => pool.start()));
    for (const [name, docx] of Object.entries(documents) as ['letter' | 'report', Buffer][]) {
      const rounds = options.smoke ? 1 : name === 'letter' ? 10 : 6;
      const block = options.smoke ? 2 : name === 'letter' ? 20 : 5;
      const runs = Object.fromEntries(TUNINGS.map((profile) => [profile, { latencies: [] as number[], seconds: 0, cpuSeconds: 0 }]));
      for (const profile of TUNINGS) for (let i = 0; i < 3; i++) await pools[profile].convert(docx, 'docx', 'pdf'); // warm-up, untimed
      for (let round = 0; round < rounds; round++) {
        for (const profile of round % 2 === 0 ? TUNINGS : [...TUNINGS].reverse()) {
          const pool = pools[profile];
          const cpuBefore = descendantCpuSeconds(pool.pids, 'soffice.bin');
          const latencies: number[] = [];
          const run = await runClosedLoop(block, 1, async () => {
            const t0 = performance.now();
            await pool.convert(docx, 'docx', 'pdf');
            latencies.push(performance.now() - t0);
          });
          if (!options.smoke) await new Promise((resolve) => setTimeout(resolve, 300));
          runs[profile]!.cpuSeconds += descendantCpuSeconds(pool.pids, 'soffice.bin') - cpuBefore;
          runs[profile]!.seconds += run.seconds;
          runs[profile]!.latencies.push(...latencies);
        }
      }
      results[name] = Object.fromEntries(
        TUNINGS.map((profile) => {
          const { latencies, seconds, cpuSeconds } = runs[profile]!;
          return [profile, { ...summarize(latencies, seconds), cpuMs: (cpuSeconds * 1000) / latencies.length }];
        }),
      ) as Record<ProfileTuning, ProfileRun>;
      options.log(`${name} profiles: untuned ${fixed(results[name]!.untuned.cpuMs)} CPU ms, tuned ${fixed(results[name]!.tuned.cpuMs)} CPU ms per conversion`);
    }
  } finally {
    await Promise.all(Object.values(pools).map((pool) => pool.close()));
  }
  return results;
}

function profileTable(results: Record<string, Record<ProfileTuning, ProfileRun>>, pages: Record<string, number>): string {
  const rows = Object.entries(results).flatMap(([name, byProfile]) =>
    TUNINGS.map((profile) => {
      const run = byProfile[profile];
      const base = byProfile.untuned;
      return [
        `${name} (${pages[name]} page${pages[name] === 1 ? '' : 's'})`,
        profile === 'untuned' ? 'untuned (baseline)' : 'tuned',
        run.count,
        fixed(run.perSecond, 2),
        fixed(run.p50, 0),
        fixed(run.p95, 0),
        fixed(run.cpuMs, 1),
        profile === 'untuned' ? '1.00×' : ratio(run.cpuMs, base.cpuMs),
      ];
    }),
  );
  return markdownTable(['document', 'profile', 'n', 'docs/s', 'p50 ms', 'p95 ms', 'LibreOffice CPU ms / conversion', 'CPU vs untuned'], rows);
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
  try {
    for (const [name, docx] of Object.entries(documents) as ['letter' | 'report', Buffer][]) {
      // Warm-up, untimed: each instance converts once; the per-call driver runs once.
      const pdf = await pool.convert(docx, 'docx', 'pdf');
      await Promise.all([pool.convert(docx, 'docx', 'pdf'), pool.convert(docx, 'docx', 'pdf')]);
      await convertPerCall(docx, 'pdf', TIMEOUT_MS);
      const pages = pageCount(pdf);
      pagesOf[name] = pages;
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
    'The warm pool runs with the tuned profile by default (the table above);',
    '`packages/converter/src/performance-profile.ts` lists its settings. Here one instance with',
    'each profile converts the same DOCX one at a time, in alternating blocks, in this run;',
    'the CPU is that of soffice.bin itself (user + system, from `/proc`).',
    '',
    profileTable(profiles, pagesOf),
    '',
    target(
      'LibreOffice CPU per one-page PDF (letter) −20% against the untuned profile',
      `${fixed(profiles.letter!.untuned.cpuMs, 1)} → ${fixed(profiles.letter!.tuned.cpuMs, 1)} ms (${ratio(profiles.letter!.tuned.cpuMs, profiles.letter!.untuned.cpuMs)})`,
      profiles.letter!.tuned.cpuMs <= 0.8 * profiles.letter!.untuned.cpuMs,
    ),
  ].join('\n');
  publish(options, 'conversion', 'Conversion: warm pool vs per-call driver', body);
  return { drivers: results, profiles };
}

runWhenMain(module, runConversionBench);
