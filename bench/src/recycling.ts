import { WarmConverterPool } from '@docgen/converter';
import { renderedDocuments } from './documents';
import { allProcesses, descendantsOf } from './process-cpu';
import { publish, runWhenMain, type BenchOptions } from './report';
import { MEMORY_SCRATCH_DIR } from './scratch';
import { fixed, markdownTable, percentile, runClosedLoop } from './stats';

const INSTANCES = 2;
/** Two clients an instance: one converting, one waiting, as the worker keeps its instances busy under load. */
const CLIENTS = 2 * INSTANCES;
/** Often enough for several recycles a block; the worker's default is 500 (CONVERTER_RECYCLE_AFTER). */
const RECYCLE_AFTER = 100;
/** A conversion this slow waited for something other than LibreOffice's work on it. */
const STALL_MS = 250;

/** LibreOffice instances of this process, by their UNO bridges (one each, from its start to its end). */
const bridges = () => descendantsOf(process.pid, allProcesses()).filter((stat) => stat.comm.startsWith('python')).length;

/** Waits until every pool is full and no instance is starting or stopping, so no recycle's work spills into the next block. */
async function settled(pools: WarmConverterPool[]): Promise<void> {
  const busy = () => bridges() > INSTANCES * pools.length || pools.some((pool) => pool.liveCount < INSTANCES);
  for (let waited = 0; busy() && waited < 30_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
}

interface PoolResult {
  latencies: number[];
  seconds: number;
  recycles: number;
}

const noResult = (): PoolResult => ({ latencies: [], seconds: 0, recycles: 0 });

/**
 * What recycling LibreOffice costs the documents behind it: two pools of two warm instances
 * convert the e2e letter, four clients in a closed loop, in alternating blocks so both see the
 * same machine: the baseline never recycles; the other recycles each instance after
 * RECYCLE_AFTER conversions, as the worker does after CONVERTER_RECYCLE_AFTER.
 */
export async function runRecyclingBench(options: BenchOptions) {
  const { letter } = renderedDocuments();
  const blockSize = options.smoke ? 8 : 400;
  const blockCount = options.smoke ? 1 : 6;
  const recycleAfter = options.smoke ? 3 : RECYCLE_AFTER;
  const results = { kept: noResult(), recycled: noResult() };
  const pool = (result: PoolResult, recycle: number) =>
    new WarmConverterPool({
      size: INSTANCES,
      timeoutMs: 60_000,
      recycleAfter: recycle,
      scratchDir: MEMORY_SCRATCH_DIR,
      onEvent: (event) => {
        if (event.type === 'recycled') result.recycles += 1;
      },
    });
  const kept = pool(results.kept, 1_000_000);
  const recycled = pool(results.recycled, recycleAfter);
  await Promise.all([kept.start(), recycled.start()]);
  const block = async (converter: WarmConverterPool, result: PoolResult) => {
    const run = await runClosedLoop(blockSize, CLIENTS, async () => {
      const t0 = performance.now();
      await converter.convert(letter, 'docx', 'pdf');
      result.latencies.push(performance.now() - t0);
    });
    result.seconds += run.seconds;
  };
  try {
    await Promise.all([block(kept, noResult()), block(recycled, noResult())]); // warm-up
    await settled([kept, recycled]);
    results.recycled.recycles = 0;
    for (let i = 0; i < blockCount; i++) {
      await block(kept, results.kept);
      await block(recycled, results.recycled);
      await settled([kept, recycled]);
      options.log(`block ${i + 1}: ${results.recycled.recycles} recycles so far`);
    }
  } finally {
    await Promise.all([kept.close(), recycled.close()]);
  }
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
    `Two pools of ${INSTANCES} warm LibreOffice instances (scratch files in memory) convert the e2e letter, ${CLIENTS} clients in a`,
    `closed loop, in alternating blocks of ${blockSize} conversions (${blockCount} each): the baseline never recycles an`,
    `instance; the other recycles each after ${recycleAfter} conversions, as the render worker does after`,
    '`CONVERTER_RECYCLE_AFTER` (500 by default): a recycle every 50 documents of the pool here, so its cost shows.',
    `Time per conversion from the call to the PDF, waiting for an instance included; "stalled" counts those over ${STALL_MS} ms.`,
    'After each block of the recycled pool the next block waits until no instance is starting or stopping.',
    '',
    markdownTable(
      ['pool', 'recycles', 'PDF/s', 'p50 ms', 'p99 ms', 'max ms', 'stalled'],
      [row('never recycled (baseline)', results.kept), row(`recycled every ${recycleAfter}`, results.recycled)],
    ),
  ].join('\n');
  publish(options, 'recycling', 'Recycling LibreOffice: what the documents behind it wait', body);
  return results;
}

runWhenMain(module, runRecyclingBench);
