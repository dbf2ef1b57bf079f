import { buildDocx, startStack, apiClient, table, pdfText, type ApiClient, type RunningService, type Stack } from '@docgen/testing';
import { execFileSync } from 'node:child_process';

/** A document whose PDF takes LibreOffice a few seconds: long enough to kill something mid-render. */
const SLOW_ROWS = Array.from({ length: 3000 }, (_, i) => ({ a: `row ${i}`, b: 'lorem ipsum dolor sit amet', c: i }));

/** Processes still alive in a process group (the pool runs each LibreOffice in its own). */
const groupMembers = (pgid: number) =>
  execFileSync('ps', ['-eo', 'pgid=,pid='])
    .toString()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([group]) => group === pgid);

describe('resilience (real worker processes and LibreOffice)', () => {
  let stack: Stack;
  let api: ApiClient;
  let templateId: string;

  beforeAll(async () => {
    stack = await startStack({ workers: 0, env: { RENDER_LOCK_MS: '2000' } });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    templateId = (await api.uploadTemplate(buildDocx({ body: table([['{#rows}{a}', '{b}', '{c}{/rows}']]) }), 'slow.docx')).id;
  }, 60_000);
  afterAll(() => stack.close());

  const startSlowDocument = async () => {
    const res = await api.call('POST', '/api/v1/documents', { template_id: templateId, input_json: { rows: SLOW_ROWS }, output_format: 'pdf' });
    expect(res.status).toBe(202);
    await api.waitForDocument(res.body.id, ['rendering'], 30_000);
    return res.body.id as string;
  };

  it('finishes a document whose worker was killed with SIGKILL mid-render, on another worker', async () => {
    const first = await stack.start('render-worker');
    const instance = (await first.waitForLog((line) => line.msg === 'converter started')).pid as number;
    const id = await startSlowDocument();
    await first.stop('SIGKILL');
    const second = await stack.start('render-worker');
    const doc = await api.waitForDocument(id, ['ready', 'failed'], 90_000);
    expect(doc).toMatchObject({ status: 'ready', files: ['pdf'] });
    const row = await stack.database.db.document.findUniqueOrThrow({ where: { id } });
    expect(row.renderAttempts).toBe(2);
    expect(pdfText((await api.call('GET', `/api/v1/documents/${id}/download`)).raw)).toContain('row 2999');
    expect(await stack.database.db.outboxEvent.count({ where: { subjectId: id } })).toBe(1);
    expect(await second.stop('SIGTERM')).toBe(0);
    // The dead worker's LibreOffice does not outlive it.
    const deadline = Date.now() + 15_000;
    while (groupMembers(instance).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(groupMembers(instance)).toEqual([]);
  }, 120_000);

  it('hands a first attempt whose worker died before marking it rendering to another worker, which counts it at once', async () => {
    // Marks after a minute: these workers' first attempts stay unmarked for this whole test.
    const lateMarks = { RENDERING_MARK_AFTER_MS: '60000', LOG_LEVEL: 'debug' };
    const doomed = await stack.start('render-worker', lateMarks);
    const res = await api.call('POST', '/api/v1/documents', { template_id: templateId, input_json: { rows: SLOW_ROWS }, output_format: 'pdf' });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    const converting = (worker: RunningService) => worker.waitForLog((line) => line.msg === 'conversion started' && line.documentId === id);
    await converting(doomed);
    expect(await stack.database.db.document.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: 'queued', renderAttempts: 0 });
    await doomed.stop('SIGKILL');

    // The dead worker is silent for RENDER_LOCK_MS (2 s) and the next gives its take back to the render list, marked as
    // taken once before: that take is marked at once, and counts both takes (the first stopped its worker uncounted).
    const second = await stack.start('render-worker', lateMarks);
    await converting(second);
    const retaken = await stack.database.db.document.findUniqueOrThrow({ where: { id } });
    const outcome = await api.waitForDocument(id, ['ready', 'failed'], 90_000);
    expect(await second.stop('SIGTERM')).toBe(0);
    expect(retaken).toMatchObject({ status: 'rendering', renderAttempts: 2 });
    expect(outcome).toMatchObject({ status: 'ready', files: ['pdf'] });
    expect(await stack.database.db.document.findUniqueOrThrow({ where: { id } })).toMatchObject({ renderAttempts: 2, generation: 1 });
    expect(await stack.database.db.outboxEvent.count({ where: { subjectId: id } })).toBe(1);
  }, 120_000);

  it('retries a document whose LibreOffice instance was killed mid-conversion, and refills the pool', async () => {
    const worker = await stack.start('render-worker', { CONVERTER_POOL_SIZE: '1', LOG_LEVEL: 'debug' });
    const started = await worker.waitForLog((line) => line.msg === 'converter started');
    const id = await startSlowDocument();
    await worker.waitForLog((line) => line.msg === 'conversion started' && line.documentId === id); // past the fill, into the conversion
    process.kill(-(started.pid as number), 'SIGKILL');
    const doc = await api.waitForDocument(id, ['ready', 'failed'], 90_000);
    expect(doc).toMatchObject({ status: 'ready' });
    expect(worker.logs.some((line) => line.msg === 'render attempt failed; will retry')).toBe(true);
    const restarted = worker.logs.filter((line) => line.msg === 'converter started');
    expect(restarted.length).toBeGreaterThanOrEqual(2);
    expect(restarted.at(-1)!.pid).not.toBe(started.pid);
    const metrics = await (await fetch(`${worker.url}/metrics`)).text();
    expect(metrics).toMatch(/docgen_converter_instances\{[^}]*\} 1/);
  }, 120_000);
});
