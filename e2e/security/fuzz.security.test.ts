import { readFileSync, readdirSync } from 'node:fs';
import fc from 'fast-check';
import {
  apiClient,
  buildDocx,
  buildXlsx,
  hostileDocxTemplates,
  paragraph,
  startStack,
  table,
  wellBehavedDocx,
  type ApiClient,
  type ApiResponse,
  type Stack,
} from '@docgen/testing';
import { csvMutation, documentBodyMutation, htmlMutation, zipMutation } from './fuzz-inputs';

// FUZZ_RUNS=1000 is the long mode (docs/security.md); without it each format gets a short run.
// FUZZ_SEED replays a run (fast-check prints the seed and the counterexample of a failure).
const LONG = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : undefined;
// A fixed seed unless told otherwise: the run in npm test is the same every time.
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const runs = (short: number) => LONG ?? short;

/**
 * Resident memory of a process and its descendants (a worker's LibreOffice included), in MiB:
 * now (VmRSS), or the sum of each one's peak (VmHWM; an upper bound of the tree's peak).
 */
function treeRssMb(pid: number, which: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  let kb = 0;
  for (const queue = [pid]; queue.length > 0;) {
    const next = queue.pop()!;
    try {
      kb += Number(new RegExp(`${which}:\\s+(\\d+)`).exec(readFileSync(`/proc/${next}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      continue;
    }
    queue.push(...(children.get(next) ?? []));
  }
  return Math.round(kb / 1024);
}

/**
 * Issue 28 item 7: mutated DOCX, XLSX, CSV and HTML uploads and JSON bodies against the real
 * gateway and render worker processes (and LibreOffice). Every answer a 2xx or a 4xx with a
 * detail, no process dies, no document is left rendering, and memory stays bounded.
 */
describe(`fuzzing the running services (seed ${SEED})`, () => {
  let stack: Stack;
  let api: ApiClient;
  let templateId: string;
  let bulkTemplateId: string;
  let apiKey: string;
  const statuses: Record<string, Record<number, number>> = {};
  const rssAtStart: Record<string, number> = {};

  beforeAll(async () => {
    stack = await startStack({ env: { OUTBOUND_ALLOW_PRIVATE: 'false', CONVERTER_POOL_SIZE: '1', RENDER_TIMEOUT_MS: '20000' } });
    apiKey = (await stack.organization(1_000_000)).apiKey;
    api = apiClient(stack.gateways[0]!.url, apiKey);
    const template = buildDocx({
      body: [paragraph('Dear {name}'), table([['{#items}{x}', '{y}{/items}']]), paragraph('{%logo}'), paragraph('{#paid}Paid{/paid} {total}')].join(''),
    });
    templateId = (await api.uploadTemplate(template, 'fuzz-target.docx')).id;
    bulkTemplateId = (await api.uploadTemplate(buildDocx({ body: paragraph('Dear {name}') }), 'fuzz-bulk.docx')).id;
    rssAtStart.gateway = treeRssMb(stack.gateways[0]!.process.pid!);
    rssAtStart.worker = treeRssMb(stack.workers[0]!.process.pid!);
  }, 120_000);
  afterAll(() => stack?.close());

  /** Checks one answer and counts it under its format. */
  const check = (format: string, res: ApiResponse) => {
    statuses[format] = statuses[format] ?? {};
    statuses[format][res.status] = (statuses[format][res.status] ?? 0) + 1;
    expect(res.status).toBeGreaterThanOrEqual(200);
    expect(res.status).toBeLessThan(500);
    if (res.status >= 400) expect(typeof res.body.detail).toBe('string');
    else expect(typeof res.body.id).toBe('string');
  };
  const property = <T>(arbitrary: fc.Arbitrary<T>, numRuns: number, run: (value: T) => Promise<void>) =>
    fc.assert(fc.asyncProperty(arbitrary, run), { numRuns, seed: SEED, endOnFailure: true });
  const docxBases = () => [
    buildDocx({ body: `${paragraph('Dear {name}')}${table([['{#items}{x}', '{y}{/items}']])}`, header: paragraph('{company}'), footer: paragraph('p') }),
    wellBehavedDocx(),
    ...hostileDocxTemplates('http://127.0.0.1:9', '/etc/passwd')
      .slice(0, 6)
      .map((t) => t.file),
  ];

  it('DOCX template uploads', async () => {
    await property(zipMutation(docxBases()), runs(150), async (file) => check('docx', await api.postFile('/api/v1/templates', file, 'fuzz.docx')));
  }, 1_800_000);

  it('XLSX and CSV bulk uploads', async () => {
    const bulk = (file: Buffer, filename: string) => api.postFile('/api/v1/bulk-jobs', file, filename, { template_id: bulkTemplateId, output_format: 'docx' });
    await property(zipMutation([buildXlsx([['name'], ['Ada'], ['Grace']])]), runs(80), async (file) => check('xlsx', await bulk(file, 'fuzz.xlsx')));
    await property(csvMutation(), runs(80), async (file) => check('csv', await bulk(file, 'fuzz.csv')));
  }, 1_800_000);

  it('JSON document requests', async () => {
    await property(documentBodyMutation(templateId), runs(200), async ({ body, raw }) => {
      if (raw === undefined) return check('json', await api.call('POST', '/api/v1/documents/', body));
      // A body that is not JSON at all, sent as JSON.
      const res = await fetch(`${stack.gateways[0]!.url}/api/v1/documents/`, {
        method: 'POST',
        headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
        body: raw,
      });
      check('json', { status: res.status, headers: res.headers, body: (await res.json()) as ApiResponse['body'], raw: Buffer.alloc(0) });
    });
  }, 1_800_000);

  it('HTML template uploads (each one a LibreOffice import)', async () => {
    await property(htmlMutation(), runs(12), async (file) => check('html', await api.postFile('/api/v1/templates', file, 'fuzz.html')));
  }, 3_600_000);

  it('leaves every service running, no document rendering, and memory bounded', async () => {
    for (const service of [...stack.gateways, ...stack.workers]) expect(service.process.exitCode).toBeNull();
    const deadline = Date.now() + 180_000;
    let unfinished = Infinity;
    while (unfinished > 0 && Date.now() < deadline) {
      unfinished = await stack.database.db.document.count({ where: { status: { in: ['queued', 'rendering'] } } });
      if (unfinished > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(unfinished).toBe(0);
    const outcomes = await stack.database.db.document.groupBy({ by: ['status'], _count: true });
    const rss = { gateway: treeRssMb(stack.gateways[0]!.process.pid!), worker: treeRssMb(stack.workers[0]!.process.pid!) };
    const peak = { gateway: treeRssMb(stack.gateways[0]!.process.pid!, 'VmHWM'), worker: treeRssMb(stack.workers[0]!.process.pid!, 'VmHWM') };
    process.stdout.write(
      `fuzz (seed ${SEED}): statuses ${JSON.stringify(statuses)}; documents ${JSON.stringify(Object.fromEntries(outcomes.map((o) => [o.status, o._count])))}; ` +
        `RSS MiB at start ${JSON.stringify(rssAtStart)}, at end ${JSON.stringify(rss)}, peak ${JSON.stringify(peak)}\n`,
    );
    // Both kinds of answer were reached for the uploads: the fuzzer got past the first checks.
    for (const format of ['docx', 'xlsx', 'json']) expect(Object.keys(statuses[format] ?? {}).some((status) => Number(status) < 300)).toBe(true);
    expect(peak.gateway).toBeLessThan(1_024);
    expect(peak.worker).toBeLessThan(2_048);
    expect((await api.call('GET', '/healthz')).status).toBe(200);
  }, 240_000);
});
