import { Agent, request } from 'node:http';
import os from 'node:os';
import { WarmConverterPool } from '@docgen/converter';
import { apiClient, makeTestCertificates, startStack, type ApiClient, type Stack } from '@docgen/testing';
import { LETTER_TEMPLATE, letterInput, renderedDocuments } from './documents';
import { cpuMsPer, cpuSnapshot, type CpuGroups } from './process-cpu';
import { roundTripCounter, roundTripsPer, type RoundTripCounter } from './round-trips';
import { startReadyNotices } from './ready-notices';
import { runWhenMain, publish, type BenchOptions } from './report';
import { MEMORY_SCRATCH_DIR } from './scratch';
import { fixed, markdownTable, ratio, runClosedLoop, target, type Run } from './stats';

const totalCpu = (cpu: Record<string, number> = {}) => Object.values(cpu).reduce((sum, ms) => sum + ms, 0);
/** The service's own CPU per document: every process but LibreOffice and the bench client. */
const serviceCpu = (cpu: Record<string, number> = {}) => totalCpu(cpu) - (cpu.LibreOffice ?? 0) - (cpu['bench client'] ?? 0);

/** Bare warm LibreOffice, two instances, on the same DOCX the service will produce, with the same scratch directory. */
async function bareWarmBaseline(smoke: boolean) {
  const { letter } = renderedDocuments();
  const pool = new WarmConverterPool({ size: 2, timeoutMs: 60_000, recycleAfter: 100_000, scratchDir: MEMORY_SCRATCH_DIR });
  await pool.start();
  try {
    await Promise.all([pool.convert(letter, 'docx', 'pdf'), pool.convert(letter, 'docx', 'pdf')]);
    const convert = async () => void (await pool.convert(letter, 'docx', 'pdf'));
    return { single: await runClosedLoop(smoke ? 3 : 100, 1, convert), pair: await runClosedLoop(smoke ? 4 : 500, 2, convert) };
  } finally {
    await pool.close();
  }
}

/**
 * POST /documents for the clients: node:http over kept-alive connections, a lighter load
 * generator than fetch (it shares the cores with what it measures, as autocannon does in
 * bench:gateway).
 */
function documentPoster(gatewayUrl: string, apiKey: string) {
  // A free socket is closed by the client after 4 s idle, as a proxy in front should: the
  // side that closes an idle connection must be the side that reuses it, or a request sent
  // as the other side closes it fails (ECONNRESET; the gateway waits 65 s, keep-alive.ts).
  const agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
  return (body: unknown) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = request(`${gatewayUrl}/api/v1/documents`, {
        method: 'POST',
        agent,
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown> }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
}

/**
 * Clients POST a document and wait for its document.ready webhook; time-to-ready is the
 * document's own completed_at minus the moment the client sent the POST, so it does not
 * depend on how the client learns of it. A webhook instead of polling keeps 32 clients
 * from adding thousands of GETs a second to the load being measured.
 */
export async function runEndToEndBench(options: BenchOptions) {
  // `--only=pdf@32,docx@32` runs just those cells (to try a change quickly); nothing is written then.
  const only = process.argv
    .find((arg) => arg.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  // The baseline is measured before and after the service runs, and the targets are checked
  // against the better of the two (lower p50, higher throughput): on a shared machine one
  // short measurement can come out low and flatter the ratio.
  const before = await bareWarmBaseline(options.smoke);
  options.log(`bare warm before: p50 ${fixed(before.single.p50)} ms at c=1, ${fixed(before.pair.perSecond)} docs/s at c=2`);

  const certificates = makeTestCertificates();
  const receiver = await startReadyNotices(certificates);

  let stack: Stack | undefined;
  let roundTrips: RoundTripCounter | undefined;
  const rows: (string | number)[][] = [];
  const results: Record<string, Run> = {};
  const cpuRows: (string | number)[][] = [];
  /** Documents per second one core of each process sustains: 1000 / its CPU ms per document (— where it does next to nothing). */
  const perCoreRows: (string | number)[][] = [];
  const roundTripRows: (string | number)[][] = [];
  let cpuNames: string[] = [];
  /** CPU ms per document by process at 32 clients, per output. */
  const cpuAt32: Partial<Record<'pdf' | 'docx', Record<string, number>>> = {};
  try {
    stack = await startStack({
      keepLogs: false,
      env: {
        CONVERTER_POOL_SIZE: '2',
        OUTBOUND_ALLOW_PRIVATE: 'true',
        NODE_EXTRA_CA_CERTS: certificates.caPath,
        RENDER_LOCK_MS: '30000',
        // The render worker's scratch files in memory, as deployed (and as the baseline's).
        ...(MEMORY_SCRATCH_DIR ? { TMPDIR: MEMORY_SCRATCH_DIR } : {}),
      },
    });
    const dispatcher = await stack.start('webhook-dispatcher');
    const worker = stack.workers[0]!.process.pid!;
    const cpuGroups: CpuGroups = {
      services: { gateway: stack.gateways[0]!.process.pid!, 'render worker': worker, 'webhook dispatcher': dispatcher.process.pid! },
      childrenOf: { LibreOffice: worker },
      byCommand: { PostgreSQL: 'postgres', Redis: 'redis-server' },
    };
    const { apiKey } = await stack.organization(10_000_000);
    const api: ApiClient = apiClient(stack.gateways[0]!.url, apiKey);
    const postDocument = documentPoster(stack.gateways[0]!.url, apiKey);
    const templateId = (await api.uploadTemplate(LETTER_TEMPLATE, 'invoice.docx')).id;
    roundTrips = roundTripCounter(stack.env.REDIS_URL!, stack.database.db);
    const hook = await api.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/ready`, events: ['document.ready', 'document.failed'] });
    if (hook.status !== 201) throw new Error(`webhook registration answered ${hook.status}`);

    const generate = (format: 'pdf' | 'docx') => async (index: number) => {
      const sent = Date.now();
      const res = await postDocument({ template_id: templateId, input_json: letterInput(index), output_format: format });
      if (res.status !== 202) throw new Error(`POST /documents answered ${res.status}: ${JSON.stringify(res.body)}`);
      const completedAt = await receiver.waitFor(res.body.id as string);
      if (!completedAt) throw new Error(`document ${res.body.id} failed`);
      return Date.parse(completedAt) - sent;
    };

    for (const format of ['pdf', 'docx'] as const) {
      if (only && !only.some((cell) => cell.startsWith(`${format}@`))) continue;
      await runClosedLoop(options.smoke ? 2 : 20, 4, generate(format)); // warm-up
      for (const concurrency of [1, 8, 32]) {
        if (only && !only.includes(`${format}@${concurrency}`)) continue;
        const count = options.smoke ? concurrency * 2 : concurrency === 1 ? 60 : concurrency === 8 ? 300 : 800;
        const tripsBefore = await roundTrips.snapshot();
        const cpuBefore = cpuSnapshot(cpuGroups);
        const run = await runClosedLoop(count, concurrency, generate(format));
        const cpu = cpuMsPer(cpuBefore, cpuSnapshot(cpuGroups), run.count);
        const trips = roundTripsPer(tripsBefore, await roundTrips.snapshot(), run.count);
        roundTripRows.push([format, concurrency, fixed(trips.redisCommands), fixed(trips.postgresWriteTransactions)]);
        cpuNames = Object.keys(cpu);
        if (concurrency === 32) {
          cpuAt32[format] = cpu;
          cpuRows.push([format, ...Object.values(cpu).map((ms) => fixed(ms)), fixed(totalCpu(cpu))]);
          perCoreRows.push([format, ...Object.values(cpu).map((ms) => (ms >= 0.5 ? fixed(1000 / ms, 0) : '—'))]);
        }
        results[`${format}@${concurrency}`] = run;
        rows.push([format, concurrency, run.count, fixed(run.perSecond), fixed(run.p50, 0), fixed(run.p95, 0), fixed(run.p99, 0)]);
        options.log(`${format} c=${concurrency}: ${fixed(run.perSecond)} docs/s, p50 ${fixed(run.p50, 0)} ms`);
      }
    }
  } finally {
    roundTrips?.close();
    await stack?.close();
    await receiver.close();
  }
  const after = await bareWarmBaseline(options.smoke);
  options.log(`bare warm after: p50 ${fixed(after.single.p50)} ms at c=1, ${fixed(after.pair.perSecond)} docs/s at c=2`);
  const baseline = {
    single: before.single.p50 <= after.single.p50 ? before.single : after.single,
    pair: before.pair.perSecond >= after.pair.perSecond ? before.pair : after.pair,
  };

  if (only) {
    options.log(markdownTable(['output', 'clients', 'n', 'docs/s', 'p50 ms', 'p95 ms', 'p99 ms'], rows));
    options.log(markdownTable(['output', ...cpuNames, 'total'], cpuRows));
    options.log(markdownTable(['output', ...cpuNames], perCoreRows));
    options.log(markdownTable(['output', 'clients', 'Redis commands', 'PostgreSQL write transactions'], roundTripRows));
    return { baseline, results };
  }
  const pdf1 = results['pdf@1']!;
  const pdf32 = results['pdf@32']!;
  const docx32 = results['docx@32']!;
  const body = [
    'One gateway, one render worker (2 warm LibreOffice instances), one webhook dispatcher,',
    'PostgreSQL and Redis, all on this machine. Each client POSTs the one-page invoice',
    '(20-row table) and waits for its webhook before sending the next; time-to-ready is',
    "the document's `completed_at` minus the moment the POST was sent. The baseline is the",
    'same filled DOCX converted by two bare warm LibreOffice instances in this run, once',
    'before and once after the service, and the targets use the better of the two:',
    `p50 ${fixed(before.single.p50)} / ${fixed(after.single.p50)} ms one at a time, ${fixed(before.pair.perSecond)} / ${fixed(after.pair.perSecond)} docs/s two at a time.`,
    '',
    markdownTable(['output', 'clients', 'n', 'docs/s', 'p50 ms', 'p95 ms', 'p99 ms'], rows),
    '',
    'Where the CPU goes at 32 clients: CPU milliseconds (user + system) per document, by',
    `process, read from /proc around the run (${os.availableParallelism()} cores = ${os.availableParallelism() * 1000} CPU ms per second).`,
    '',
    markdownTable(['output', ...cpuNames, 'total'], cpuRows),
    '',
    'Documents per second one core of each process sustains (1000 / its CPU ms per document),',
    'for sizing: replicas of a service ≈ target docs/s ÷ this figure ÷ cores per replica.',
    '',
    markdownTable(['output', ...cpuNames], perCoreRows),
    '',
    'Round trips per document (server-wide counters around each run: Redis `INFO commandstats`,',
    "PostgreSQL's transaction-id counter, so every transaction that wrote, whoever ran it). Queue",
    'hops are fixed by the design: one render job, then one delivery job per subscribed endpoint.',
    '',
    markdownTable(['output', 'clients', 'Redis commands', 'PostgreSQL write transactions'], roundTripRows),
    '',
    target(
      'p50 time-to-ready of a one-page PDF at concurrency 1 ≤ 1.3× the bare warm conversion',
      `${fixed(pdf1.p50, 0)} ms vs ${fixed(baseline.single.p50, 0)} ms = ${ratio(pdf1.p50, baseline.single.p50)}`,
      pdf1.p50 <= 1.3 * baseline.single.p50,
    ),
    target(
      'PDF throughput at concurrency 32 ≥ 0.80× two bare warm instances',
      `${fixed(pdf32.perSecond)} vs ${fixed(baseline.pair.perSecond)} docs/s = ${ratio(pdf32.perSecond, baseline.pair.perSecond)}`,
      pdf32.perSecond >= 0.8 * baseline.pair.perSecond,
    ),
    target('… and above the 37 docs/s of the in-process peer library with two warm instances', `${fixed(pdf32.perSecond)} docs/s`, pdf32.perSecond > 37),
    target('CPU per PDF outside LibreOffice and the bench client ≤ 15 ms', `${fixed(serviceCpu(cpuAt32.pdf))} ms`, serviceCpu(cpuAt32.pdf) <= 15),
    target('DOCX-only throughput at concurrency 32 ≥ 130 documents/s', `${fixed(docx32.perSecond)} docs/s`, docx32.perSecond >= 130),
    target('CPU per DOCX in all ≤ 12 ms', `${fixed(totalCpu(cpuAt32.docx))} ms`, totalCpu(cpuAt32.docx) <= 12),
  ].join('\n');
  publish(options, 'e2e', 'End to end: POST until ready', body);
  return { baseline, results };
}

runWhenMain(module, runEndToEndBench);
