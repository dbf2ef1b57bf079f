/** Timing a batch of operations run by a fixed number of concurrent clients. */
export interface Run {
  count: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  return sortedMs[Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1)]!;
}

export function summarize(latenciesMs: number[], seconds: number): Run {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    count: sorted.length,
    seconds,
    perSecond: sorted.length / seconds,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
  };
}

/**
 * Runs `total` operations with `concurrency` clients, each starting its next operation
 * when its previous one is done (a closed loop). `operation` returns its own latency in
 * ms, or undefined to have it timed from call to resolution.
 */
export async function runClosedLoop(total: number, concurrency: number, operation: (index: number) => Promise<number | void>): Promise<Run> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const client = async () => {
    while (next < total) {
      const index = next++;
      const t0 = performance.now();
      const own = await operation(index);
      latencies.push(typeof own === 'number' ? own : performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, client));
  return summarize(latencies, (performance.now() - started) / 1000);
}

export const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
export const ratio = (value: number, baseline: number) => `${fixed(value / baseline, 2)}×`;

export function markdownTable(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A target line: what was asked, what was measured, met or not. */
export const target = (what: string, measured: string, met: boolean) => `- ${met ? '✅' : '❌'} ${what}: ${measured}`;

/** CPU ms per call of `run` in this process, over `count` calls. */
function cpuMsPerCall(count: number, run: () => void): number {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

/**
 * CPU ms per call of `baseline` and of `measured`, side by side in this process: a warm-up
 * block of each, then `blocks` rotating blocks of `perBlock` calls (A B A B …, so a drift of the
 * machine's speed falls on both), and the median block of each.
 */
export function pairedCpuMs(blocks: number, perBlock: number, baseline: () => void, measured: () => void): { baseline: number; measured: number } {
  cpuMsPerCall(perBlock, baseline);
  cpuMsPerCall(perBlock, measured);
  const baselineBlocks: number[] = [];
  const measuredBlocks: number[] = [];
  for (let block = 0; block < blocks; block++) {
    baselineBlocks.push(cpuMsPerCall(perBlock, baseline));
    measuredBlocks.push(cpuMsPerCall(perBlock, measured));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { baseline: median(baselineBlocks), measured: median(measuredBlocks) };
}
