import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiClient, startStack, type ApiClient, type Stack } from '@docgen/testing';
import { LETTER_TEMPLATE, letterInput } from './documents';
import { MEMORY_SCRATCH_DIR } from './scratch';
import { runWhenMain, publish, type BenchOptions } from './report';
import { fixed, markdownTable, runClosedLoop, target } from './stats';

/** RSS in MiB of a process and, separately, of all its descendants (the LibreOffice instances). */
function treeRss(rootPid: number): { worker: number; children: number } {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid=,rss='])
    .toString()
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number, number]);
  const descendants = new Set<number>();
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of table) {
      if ((ppid === rootPid || descendants.has(ppid)) && !descendants.has(pid)) {
        descendants.add(pid);
        grew = true;
      }
    }
  }
  const kib = (pids: (pid: number) => boolean) => table.filter(([pid]) => pids(pid)).reduce((sum, [, , rss]) => sum + rss, 0);
  return { worker: kib((pid) => pid === rootPid) / 1024, children: kib((pid) => descendants.has(pid)) / 1024 };
}

/** The worker's own account of its memory (prom-client's default metrics on its ops port), in MiB. */
async function workerMemory(opsUrl: string): Promise<Record<'heapUsed' | 'heapTotal' | 'external' | 'rss', number>> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
  return {
    heapUsed: read('nodejs_heap_size_used_bytes'),
    heapTotal: read('nodejs_heap_size_total_bytes'),
    external: read('nodejs_external_memory_bytes'),
    rss: read('process_resident_memory_bytes'),
  };
}

/** The median of five samples a second apart, once the worker is idle. */
async function settledRss(pid: number) {
  await sleep(2_000);
  const samples = [];
  for (let i = 0; i < 5; i++) {
    samples.push(treeRss(pid));
    await sleep(1_000);
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[2]!;
  return { worker: median(samples.map((s) => s.worker)), children: median(samples.map((s) => s.children)) };
}

async function generate(api: ApiClient, stack: Stack, templateId: string, count: number, readyBefore: number) {
  await runClosedLoop(count, 16, async (index) => {
    const res = await api.call('POST', '/api/v1/documents', { template_id: templateId, input_json: letterInput(index), output_format: 'pdf' });
    if (res.status !== 202) throw new Error(`POST /documents answered ${res.status}`);
  });
  for (;;) {
    const done = await stack.database.db.document.count({ where: { status: { in: ['ready', 'failed'] } } });
    if (done >= readyBefore + count) break;
    await sleep(1_000);
  }
  const failed = await stack.database.db.document.count({ where: { status: 'failed' } });
  if (failed > 0) throw new Error(`${failed} documents failed`);
}

/** Render worker RSS (with its LibreOffice instances) after 100 documents and after 10,000. */
export async function runMemoryBench(options: BenchOptions) {
  const [early, late] = options.smoke ? [10, 30] : [100, 10_000];
  // Scratch files in memory, as deployed (an in-memory /tmp); they are not the worker's RSS.
  const stack = await startStack({ keepLogs: false, env: { CONVERTER_POOL_SIZE: '2', ...(MEMORY_SCRATCH_DIR ? { TMPDIR: MEMORY_SCRATCH_DIR } : {}) } });
  try {
    const api = apiClient(stack.gateways[0]!.url, (await stack.organization(1_000_000_000)).apiKey);
    const templateId = (await api.uploadTemplate(LETTER_TEMPLATE, 'invoice.docx')).id;
    const pid = stack.workers[0]!.process.pid!;
    await generate(api, stack, templateId, early, 0);
    const after100 = await settledRss(pid);
    const inside100 = await workerMemory(stack.workers[0]!.url);
    options.log(`after ${early}: worker ${fixed(after100.worker)} MiB, LibreOffice ${fixed(after100.children)} MiB`);
    const started = Date.now();
    await generate(api, stack, templateId, late - early, early);
    const seconds = (Date.now() - started) / 1000;
    const afterAll = await settledRss(pid);
    const insideAll = await workerMemory(stack.workers[0]!.url);
    options.log(`after ${late}: worker ${fixed(afterAll.worker)} MiB, LibreOffice ${fixed(afterAll.children)} MiB`);
    const total = (r: { worker: number; children: number }) => r.worker + r.children;
    const growth = total(afterAll) / total(after100) - 1;
    const workerGrowth = afterAll.worker / after100.worker - 1;
    const body = [
      `One render worker with 2 warm LibreOffice instances (default recycling: each instance is restarted after 500 conversions) renders one-page invoice PDFs; RSS is the median of five samples once idle. ${late - early} documents took ${fixed(seconds, 0)} s (${fixed((late - early) / seconds)} docs/s).`,
      '',
      markdownTable(
        ['after', 'worker MiB', 'LibreOffice MiB', 'total MiB', 'vs after 100'],
        [
          [`${early} documents (baseline)`, fixed(after100.worker), fixed(after100.children), fixed(total(after100)), '—'],
          [`${late} documents`, fixed(afterAll.worker), fixed(afterAll.children), fixed(total(afterAll)), `${growth >= 0 ? '+' : ''}${fixed(100 * growth)}%`],
        ],
      ),
      '',
      'Where the worker process keeps it (its own /metrics: V8 heap in use and reserved, memory outside the heap such as Buffers, and RSS), MiB:',
      '',
      markdownTable(
        ['after', 'heap used', 'heap total', 'external', 'RSS'],
        [
          [`${early} documents`, ...[inside100.heapUsed, inside100.heapTotal, inside100.external, inside100.rss].map((mib) => fixed(mib))],
          [`${late} documents`, ...[insideAll.heapUsed, insideAll.heapTotal, insideAll.external, insideAll.rss].map((mib) => fixed(mib))],
        ],
      ),
      '',
      target('render worker RSS (with its LibreOffice instances) ≤ +5%', `${fixed(100 * growth)}%`, growth <= 0.05),
      target('worker process alone ≤ +5%', `${fixed(100 * workerGrowth)}%`, workerGrowth <= 0.05),
    ].join('\n');
    publish(options, 'memory', 'Memory: render worker after many documents', body);
    return { after100, afterAll, growth };
  } finally {
    await stack.close();
  }
}

runWhenMain(module, runMemoryBench);
