import os from 'node:os';
import { WarmConverterPool } from '@docgen/converter';
import { prepareDocxTemplate, renderDocx, storedDocxPackage, type TemplateVariable } from '@docgen/templating';
import { apiClient, makeTestCertificates, startStack, type ApiClient, type Stack } from '@docgen/testing';
import { documentPoster } from './document-poster';
import { LETTER_HTML_TEMPLATE, LETTER_TEMPLATE, LOGO_LETTER_TEMPLATE, letterInput, renderedDocuments } from './documents';
import { cpuMsPer, cpuSnapshot, descendantCpuSeconds, machineBusySeconds, type CpuGroups } from './process-cpu';
import { roundTripCounter, roundTripsPer, type RoundTripCounter, type RoundTrips } from './round-trips';
import { startReadyNotices } from './ready-notices';
import { runWhenMain, publish, type BenchOptions } from './report';
import { MEMORY_SCRATCH_DIR } from './scratch';
import { fixed, markdownTable, ratio, runClosedLoop, target, type Run } from './stats';

const totalCpu = (cpu: Record<string, number> = {}) => Object.values(cpu).reduce((sum, ms) => sum + ms, 0);
/** The service's own CPU per document: every process but the engines (LibreOffice, Chromium) and the bench client. */
const serviceCpu = (cpu: Record<string, number> = {}) => totalCpu(cpu) - (cpu.LibreOffice ?? 0) - (cpu.Chromium ?? 0) - (cpu['bench client'] ?? 0);

/** A run of the in-process renderer, with its CPU per PDF. */
export interface InProcessRun extends Run {
  /** CPU ms per PDF of this process: the fill and driving the pool. */
  fillCpuMs: number;
  /** CPU ms per PDF of soffice.bin. */
  libreOfficeCpuMs: number;
}

/**
 * The in-process renderer, the yardstick a user compares a service with: a library call that
 * fills the letter as the render worker does (renderDocx from the template in the form its
 * cache keeps, the intermediate DOCX stored) and converts it on a warm pool; no HTTP, queue,
 * database, storage or webhook.
 */
function inProcessRenderer(pool: WarmConverterPool) {
  const prepared = prepareDocxTemplate(LETTER_TEMPLATE);
  const variables = prepared.variables as TemplateVariable[];
  const file = storedDocxPackage(prepared.file);
  return async (index: number) => void (await pool.convert(renderDocx(file, variables, letterInput(index), new Map(), { compress: false }), 'docx', 'pdf'));
}

async function measureInProcess(pool: WarmConverterPool, count: number, concurrency: number): Promise<InProcessRun> {
  const render = inProcessRenderer(pool);
  const selfBefore = process.cpuUsage();
  const libreOfficeBefore = descendantCpuSeconds(pool.pids, 'soffice.bin');
  const run = await runClosedLoop(count, concurrency, render);
  const self = process.cpuUsage(selfBefore);
  return {
    ...run,
    fillCpuMs: (self.user + self.system) / 1000 / run.count,
    libreOfficeCpuMs: ((descendantCpuSeconds(pool.pids, 'soffice.bin') - libreOfficeBefore) * 1000) / run.count,
  };
}

/**
 * Outside the service, in this process, on one warm pool of two instances with its scratch
 * directory in memory (as the render worker's): bare conversions of the same filled DOCX the
 * service will produce, one and two at a time; then, unless left out, the in-process renderer
 * at 1 and 32 clients.
 */
async function outsideTheService(smoke: boolean, yardstick: boolean) {
  const { letter } = renderedDocuments();
  const pool = new WarmConverterPool({ size: 2, timeoutMs: 60_000, recycleAfter: 100_000, scratchDir: MEMORY_SCRATCH_DIR });
  await pool.start();
  try {
    await Promise.all([pool.convert(letter, 'docx', 'pdf'), pool.convert(letter, 'docx', 'pdf')]);
    const convert = async () => void (await pool.convert(letter, 'docx', 'pdf'));
    const single = await runClosedLoop(smoke ? 3 : 100, 1, convert);
    const pair = await runClosedLoop(smoke ? 4 : 500, 2, convert);
    if (!yardstick) return { single, pair };
    await runClosedLoop(smoke ? 2 : 20, 4, inProcessRenderer(pool)); // warm-up, as the service's
    const inProcess = { single: await measureInProcess(pool, smoke ? 3 : 60, 1), at32: await measureInProcess(pool, smoke ? 32 : 800, 32) };
    return { single, pair, inProcess };
  } finally {
    await pool.close();
  }
}

type Outside = Awaited<ReturnType<typeof outsideTheService>>;
const describeOutside = (outside: Outside) =>
  `bare p50 ${fixed(outside.single.p50)} ms at c=1, ${fixed(outside.pair.perSecond)} docs/s at c=2` +
  (outside.inProcess
    ? `; in-process renderer p50 ${fixed(outside.inProcess.single.p50)} ms at c=1, ${fixed(outside.inProcess.at32.perSecond)} PDF/s at c=32`
    : '');

/**
 * What the clients generate: the letter as a PDF or DOCX from its DOCX template, as a PDF from
 * its HTML template (Chromium), or as a PDF or DOCX from the letter with a 300 KB logo (a
 * template whose package is mostly a picture the fill only copies).
 */
type Kind = 'pdf' | 'docx' | 'html' | 'logo-pdf' | 'logo-docx';
const CELLS: [Kind, number[]][] = [
  ['pdf', [1, 8, 32]],
  ['docx', [1, 8, 32]],
  ['html', [32]],
  ['logo-pdf', [32]],
  ['logo-docx', [32]],
];
const OUTPUT_FORMAT: Record<Kind, 'pdf' | 'docx'> = { pdf: 'pdf', docx: 'docx', html: 'pdf', 'logo-pdf': 'pdf', 'logo-docx': 'docx' };

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
  const wanted = (cell: string) => !only || only.includes(cell);
  // `--no-yardstick` leaves out the in-process renderer (and the targets measured against it).
  const yardstick = !process.argv.includes('--no-yardstick');
  // The baselines are measured before and after the service runs, and the targets are checked
  // against the better of the two (lower p50, higher throughput): on a shared machine one
  // short measurement can come out low and flatter the ratio.
  const before = await outsideTheService(options.smoke, yardstick);
  options.log(`before: ${describeOutside(before)}`);

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
  /** CPU ms per document by process at 32 clients, per kind. */
  const cpuAt32: Partial<Record<Kind, Record<string, number>>> = {};
  const tripsAt32: Partial<Record<Kind, RoundTrips>> = {};
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
        // `--env=NAME=value`: a setting of the services to try (publish then writes nothing).
        ...options.serviceEnv,
      },
    });
    const dispatcher = await stack.start('webhook-dispatcher');
    const worker = stack.workers[0]!.process.pid!;
    const cpuGroups: CpuGroups = {
      services: { gateway: stack.gateways[0]!.process.pid!, 'render worker': worker, 'webhook dispatcher': dispatcher.process.pid! },
      childrenOf: { LibreOffice: worker },
      childrenMatching: { Chromium: { of: worker, comm: /chrom/i } },
      byCommand: { PostgreSQL: 'postgres', Redis: 'redis-server' },
    };
    const { apiKey } = await stack.organization(10_000_000);
    const api: ApiClient = apiClient(stack.gateways[0]!.url, apiKey);
    const postDocument = documentPoster(stack.gateways[0]!.url, apiKey);
    const letterId = (await api.uploadTemplate(LETTER_TEMPLATE, 'invoice.docx')).id;
    const wants = (kinds: Kind[]) =>
      CELLS.some(([kind, concurrencies]) => kinds.includes(kind) && concurrencies.some((clients) => wanted(`${kind}@${clients}`)));
    const htmlId = wants(['html']) ? (await api.uploadTemplate(LETTER_HTML_TEMPLATE, 'invoice.html')).id : '';
    const logoId = wants(['logo-pdf', 'logo-docx']) ? (await api.uploadTemplate(LOGO_LETTER_TEMPLATE, 'invoice-logo.docx')).id : '';
    const templateIds: Record<Kind, string> = { pdf: letterId, docx: letterId, html: htmlId, 'logo-pdf': logoId, 'logo-docx': logoId };
    roundTrips = roundTripCounter(stack.env.REDIS_URL!, stack.database.db);
    const hook = await api.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/ready`, events: ['document.ready', 'document.failed'] });
    if (hook.status !== 201) throw new Error(`webhook registration answered ${hook.status}`);

    const generate = (kind: Kind) => async (index: number) => {
      const sent = Date.now();
      const res = await postDocument({
        template_id: templateIds[kind],
        input_json: letterInput(index),
        output_format: OUTPUT_FORMAT[kind],
      });
      if (res.status !== 202) throw new Error(`POST /documents answered ${res.status}: ${JSON.stringify(res.body)}`);
      const completedAt = await receiver.waitFor(res.body.id as string);
      if (!completedAt) throw new Error(`document ${res.body.id} failed`);
      return Date.parse(completedAt) - sent;
    };

    for (const [kind, concurrencies] of CELLS) {
      if (!concurrencies.some((concurrency) => wanted(`${kind}@${concurrency}`))) continue;
      await runClosedLoop(options.smoke ? 2 : 20, 4, generate(kind)); // warm-up
      for (const concurrency of concurrencies) {
        if (!wanted(`${kind}@${concurrency}`)) continue;
        const count = options.smoke ? concurrency * 2 : concurrency === 1 ? 60 : concurrency === 8 ? 300 : 800;
        const tripsBefore = await roundTrips.snapshot();
        const cpuBefore = cpuSnapshot(cpuGroups);
        const machineBefore = machineBusySeconds();
        const run = await runClosedLoop(count, concurrency, generate(kind));
        const machineMs = ((machineBusySeconds() - machineBefore) * 1000) / run.count;
        const cpu = cpuMsPer(cpuBefore, cpuSnapshot(cpuGroups), run.count);
        const trips = roundTripsPer(tripsBefore, await roundTrips.snapshot(), run.count);
        roundTripRows.push([kind, concurrency, fixed(trips.redisCommands), fixed(trips.postgresWriteTransactions)]);
        cpuNames = Object.keys(cpu);
        if (concurrency === 32) {
          cpuAt32[kind] = cpu;
          tripsAt32[kind] = trips;
          cpuRows.push([kind, ...Object.values(cpu).map((ms) => fixed(ms)), fixed(totalCpu(cpu)), fixed(machineMs)]);
          perCoreRows.push([kind, ...Object.values(cpu).map((ms) => (ms >= 0.5 ? fixed(1000 / ms, 0) : '—'))]);
        }
        results[`${kind}@${concurrency}`] = run;
        rows.push([kind, concurrency, run.count, fixed(run.perSecond), fixed(run.p50, 0), fixed(run.p95, 0), fixed(run.p99, 0)]);
        options.log(`${kind} c=${concurrency}: ${fixed(run.perSecond)} docs/s, p50 ${fixed(run.p50, 0)} ms`);
      }
    }
  } finally {
    roundTrips?.close();
    await stack?.close();
    await receiver.close();
  }
  const after = await outsideTheService(options.smoke, yardstick);
  options.log(`after: ${describeOutside(after)}`);
  const baseline = {
    single: before.single.p50 <= after.single.p50 ? before.single : after.single,
    pair: before.pair.perSecond >= after.pair.perSecond ? before.pair : after.pair,
  };
  const inProcess =
    before.inProcess && after.inProcess
      ? {
          single: before.inProcess.single.p50 <= after.inProcess.single.p50 ? before.inProcess.single : after.inProcess.single,
          at32: before.inProcess.at32.perSecond >= after.inProcess.at32.perSecond ? before.inProcess.at32 : after.inProcess.at32,
        }
      : undefined;

  const body = [
    'One gateway, one render worker (2 warm LibreOffice instances, Chromium with 2 pages), one',
    'webhook dispatcher, PostgreSQL and Redis, all on this machine. Each client POSTs the one-page',
    'invoice (20-row table) and waits for its webhook before sending the next; time-to-ready is',
    "the document's `completed_at` minus the moment the POST was sent. `pdf` and `docx` fill the",
    "DOCX template; `html` is the same invoice as an HTML template, printed by the worker's Chromium;",
    '`logo-pdf` and `logo-docx` fill the invoice with a 300 KB company logo above its first line.',
    '',
    markdownTable(['output', 'clients', 'n', 'docs/s', 'p50 ms', 'p95 ms', 'p99 ms'], rows),
    '',
    ...yardstickSection(before, after, results, cpuAt32),
    'Where the CPU goes at 32 clients: CPU milliseconds (user + system) per document, by',
    `process, read from /proc around the run (${os.availableParallelism()} cores = ${os.availableParallelism() * 1000} CPU ms per second).`,
    "`machine` is the whole machine's busy time (/proc/stat) over the run: it also counts what no",
    "process's figure can (a recycled browser's renderers end under init and take their CPU with",
    'them) and whatever else runs here, so the gap to `total` is an upper bound on what the columns miss.',
    '',
    markdownTable(['output', ...cpuNames, 'total', 'machine'], cpuRows),
    '',
    'Documents per second one core of each process sustains (1000 / its CPU ms per document),',
    'for sizing: replicas of a service ≈ target docs/s ÷ this figure ÷ cores per replica.',
    '',
    markdownTable(['output', ...cpuNames], perCoreRows),
    '',
    'Round trips per document (server-wide counters around each run: Redis `INFO commandstats`,',
    "PostgreSQL's transaction-id counter, so every transaction that wrote, whoever ran it). Queue",
    'hops are fixed by the design: one render job, then one first delivery attempt (a Redis list entry) per subscribed endpoint.',
    '',
    markdownTable(['output', 'clients', 'Redis commands', 'PostgreSQL write transactions'], roundTripRows),
    '',
    'Targets (issue 35; the baselines are the better of their two runs):',
    '',
    ...targets(results, baseline, inProcess, cpuAt32, tripsAt32),
  ].join('\n');
  // An --only run prints what it measured, targets included, and writes nothing.
  if (only) options.log(body);
  else publish(options, 'e2e', 'End to end: POST until ready', body);
  return { baseline, inProcess, results };
}

/** The yardsticks beside the service: the bare conversion and the in-process renderer, before and after it. */
function yardstickSection(before: Outside, after: Outside, results: Record<string, Run>, cpuAt32: Partial<Record<Kind, Record<string, number>>>): string[] {
  const both = (read: (outside: Outside) => number | undefined, digits = 1) =>
    [before, after].map((outside) => fixed(read(outside) ?? NaN, digits)).join(' / ');
  const service = (cell: string, read: (run: Run) => number, digits = 1) => (results[cell] ? fixed(read(results[cell]), digits) : '—');
  const pdfCpu = cpuAt32.pdf;
  const rows: (string | number)[][] = [
    [
      'PDF/s, 32 clients',
      service('pdf@32', (run) => run.perSecond),
      both((outside) => outside.inProcess?.at32.perSecond),
      `${both((outside) => outside.pair.perSecond)} (2 at a time)`,
    ],
    [
      'p50 ms, one PDF, 1 client',
      service('pdf@1', (run) => run.p50, 0),
      both((outside) => outside.inProcess?.single.p50, 0),
      both((outside) => outside.single.p50, 0),
    ],
    [
      'CPU ms per PDF at 32 clients: LibreOffice',
      pdfCpu ? fixed(pdfCpu.LibreOffice ?? NaN) : '—',
      both((outside) => outside.inProcess?.at32.libreOfficeCpuMs),
      '—',
    ],
    [
      '… everything else (the service; the fill and driver)',
      pdfCpu ? fixed(serviceCpu(pdfCpu)) : '—',
      both((outside) => outside.inProcess?.at32.fillCpuMs),
      '—',
    ],
  ];
  if (results['html@32']) rows.push(['HTML template PDF/s, 32 clients (Chromium)', service('html@32', (run) => run.perSecond), '—', '—']);
  return [
    'Beside it, in this process, once before the service and once after (before / after), on one',
    'warm pool of two LibreOffice instances with its scratch files in memory like the worker: the',
    'bare conversion of the same filled DOCX, one and two at a time; and the in-process renderer,',
    "a library call that fills the letter as the worker does (`renderDocx` from the worker's cached",
    'form of the template) and converts it on that pool, with no HTTP, queue, database, storage or',
    'webhook, by the same closed loop of 1 and 32 clients (`--no-yardstick` leaves it out).',
    '',
    markdownTable(['figure', 'docgen', 'in-process renderer', 'bare LibreOffice'], rows),
    '',
  ];
}

function targets(
  results: Record<string, Run>,
  baseline: { single: Run; pair: Run },
  inProcess: { single: InProcessRun; at32: InProcessRun } | undefined,
  cpuAt32: Partial<Record<Kind, Record<string, number>>>,
  tripsAt32: Partial<Record<Kind, RoundTrips>>,
): string[] {
  const lines: string[] = [];
  const pdf1 = results['pdf@1'];
  const pdf32 = results['pdf@32'];
  const docx32 = results['docx@32'];
  const html32 = results['html@32'];
  if (pdf32) {
    if (inProcess)
      lines.push(
        target(
          'PDF/s at 32 clients ≥ 1.2× the in-process renderer',
          `${fixed(pdf32.perSecond)} vs ${fixed(inProcess.at32.perSecond)} PDF/s = ${ratio(pdf32.perSecond, inProcess.at32.perSecond)}`,
          pdf32.perSecond >= 1.2 * inProcess.at32.perSecond,
        ),
      );
    lines.push(
      target(
        'PDF/s at 32 clients ≥ 0.80× two bare warm instances',
        `${fixed(pdf32.perSecond)} vs ${fixed(baseline.pair.perSecond)} PDF/s = ${ratio(pdf32.perSecond, baseline.pair.perSecond)}`,
        pdf32.perSecond >= 0.8 * baseline.pair.perSecond,
      ),
    );
  }
  if (pdf1) {
    if (inProcess)
      lines.push(
        target(
          "p50 time-to-ready of one PDF at 1 client ≤ the in-process renderer's",
          `${fixed(pdf1.p50, 0)} ms vs ${fixed(inProcess.single.p50, 0)} ms = ${ratio(pdf1.p50, inProcess.single.p50)}`,
          pdf1.p50 <= inProcess.single.p50,
        ),
      );
    lines.push(
      target(
        'p50 time-to-ready of one PDF at 1 client ≤ 1.2× the bare conversion',
        `${fixed(pdf1.p50, 0)} ms vs ${fixed(baseline.single.p50, 0)} ms = ${ratio(pdf1.p50, baseline.single.p50)}`,
        pdf1.p50 <= 1.2 * baseline.single.p50,
      ),
    );
  }
  if (docx32) {
    lines.push(target('DOCX/s at 32 clients ≥ 250', `${fixed(docx32.perSecond)} docs/s`, docx32.perSecond >= 250));
    lines.push(target('CPU per DOCX in all ≤ 6.5 ms', `${fixed(totalCpu(cpuAt32.docx))} ms`, totalCpu(cpuAt32.docx) <= 6.5));
  }
  if (pdf32) {
    const cpu = cpuAt32.pdf!;
    const parts = Object.entries(cpu)
      .filter(([name]) => !['LibreOffice', 'Chromium', 'bench client'].includes(name))
      .map(([name, ms]) => `${name} ${fixed(ms)}`)
      .join(', ');
    lines.push(target('CPU per PDF outside LibreOffice and the bench client ≤ 8 ms', `${fixed(serviceCpu(cpu))} ms (${parts})`, serviceCpu(cpu) <= 8));
    const trips = tripsAt32.pdf!;
    lines.push(target('Redis commands per PDF ≤ 40 (32 clients)', fixed(trips.redisCommands), trips.redisCommands <= 40));
    lines.push(target('PostgreSQL write transactions per PDF ≤ 3 (32 clients)', fixed(trips.postgresWriteTransactions), trips.postgresWriteTransactions <= 3));
  }
  if (html32 && pdf32)
    lines.push(
      target(
        "HTML template PDFs/s via the browser pool at 32 clients ≥ the DOCX path's PDF/s",
        `${fixed(html32.perSecond)} vs ${fixed(pdf32.perSecond)} PDF/s = ${ratio(html32.perSecond, pdf32.perSecond)}`,
        html32.perSecond >= pdf32.perSecond,
      ),
    );
  return lines;
}

runWhenMain(module, runEndToEndBench);
