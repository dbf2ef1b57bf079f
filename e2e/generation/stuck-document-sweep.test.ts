import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiClient, buildDocx, paragraph, solidPng, startStack, type ApiClient, type RunningService, type Stack } from '@docgen/testing';

const RENDER_TIMEOUT_MS = 3_000;
/** The stuck-document sweep's numbers for a 3 s render timeout (docs/generation.md): grace 5 s, a sweep every 1 s. */
const GRACE_MS = 5_000;
const SWEEP_INTERVAL_MS = 1_000;
/** Long enough that BullMQ's stalled-job check (the other way back for a dead worker's job) cannot be what rescues a document here. */
const RENDER_LOCK_MS = 60_000;

describe('the stuck-document sweep (real worker processes)', () => {
  let stack: Stack;
  let api: ApiClient;
  let organizationId: string;
  let templateId: string;
  let images: Server;
  let imageBase: string;
  let worker: RunningService | undefined;
  let imageRequests = 0;
  let firstImageRequest: () => void;
  const firstImageRequested = new Promise<void>((resolve) => (firstImageRequest = resolve));

  beforeAll(async () => {
    // The first request for the logo never gets an answer; later ones do.
    images = createServer((req, res) => {
      imageRequests += 1;
      if (imageRequests === 1) return firstImageRequest();
      res.end(solidPng(40, 20));
    });
    images.listen(0, '127.0.0.1');
    await once(images, 'listening');
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    stack = await startStack({
      workers: 0,
      env: {
        RENDER_TIMEOUT_MS: String(RENDER_TIMEOUT_MS),
        RENDER_LOCK_MS: String(RENDER_LOCK_MS),
        OUTBOUND_ALLOW_PRIVATE: 'true',
        IMAGE_FETCH_TIMEOUT_MS: '30000',
      },
    });
    const organization = await stack.organization();
    organizationId = organization.organizationId;
    api = apiClient(stack.gateways[0]!.url, organization.apiKey);
    templateId = (await api.uploadTemplate(buildDocx({ body: paragraph('Hello {name}') }), 'hello.docx')).id;
  }, 60_000);
  afterAll(async () => {
    await stack.close();
    images.closeAllConnections();
    images.close();
  });

  /** A document row as a worker that is gone would have left it; no render job exists for it. */
  const leftBehind = (data: { status: 'rendering' | 'queued'; renderingStartedAt: Date | null; renderAttempts: number }) =>
    stack.database.db.document.create({
      data: { organizationId, templateId, inputFormat: 'docx', outputFormat: 'pdf', inputJson: { name: 'Ada' }, generation: 1, ...data },
    });

  const sweepLine = (documentId: string, msg: RegExp) => (line: Record<string, unknown>) => line.documentId === documentId && msg.test(line.msg as string);

  it('queues a document whose worker died again soon after the render timeout, long before its job lock expires', async () => {
    const logoTemplate = await api.uploadTemplate(buildDocx({ body: paragraph('Logo: {%logo}') }), 'logo.docx');
    const doomed = await stack.start('render-worker');
    const res = await api.call('POST', '/api/v1/documents', {
      template_id: logoTemplate.id,
      input_json: { logo: `${imageBase}/logo.png` },
      output_format: 'pdf',
    });
    expect(res.status).toBe(202);
    await firstImageRequested; // mid-render: the worker waits for the image
    // A first attempt is marked rendering once it has run a second (RENDERING_MARK_AFTER_MS).
    await api.waitForDocument(res.body.id, ['rendering'], 10_000);
    const firstAttempt = await stack.database.db.document.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(firstAttempt).toMatchObject({ status: 'rendering', generation: 1, renderAttempts: 1 });
    await doomed.stop('SIGKILL');
    worker = await stack.start('render-worker');

    expect(await api.waitForDocument(res.body.id, ['ready', 'failed'], 30_000)).toMatchObject({ status: 'ready', files: ['pdf'] });
    const requeued = await worker.waitForLog(sweepLine(res.body.id, /its worker stopped\); queued again$/));
    const requeuedAfter = Date.parse(requeued.time as string) - firstAttempt.renderingStartedAt!.getTime();
    expect(requeuedAfter).toBeGreaterThanOrEqual(RENDER_TIMEOUT_MS + GRACE_MS);
    // The sweep, not BullMQ's stalled check (only after the 60 s lock), rescued it. No tighter
    // bound: on a loaded machine the new worker itself can take many seconds to start.
    expect(requeuedAfter).toBeLessThan(RENDER_LOCK_MS);
    const row = await stack.database.db.document.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row).toMatchObject({ status: 'ready', generation: 2, renderAttempts: 2 });
    expect((await stack.database.db.outboxEvent.findMany({ where: { subjectId: res.body.id } })).map((event) => event.type)).toEqual(['document.ready']);
  }, 60_000);

  it('leaves a rendering document alone until the render timeout + grace, then queues it again', async () => {
    worker ??= await stack.start('render-worker');
    const startedAt = new Date();
    const doc = await leftBehind({ status: 'rendering', renderingStartedAt: startedAt, renderAttempts: 1 });
    expect(await api.waitForDocument(doc.id, ['ready', 'failed'], 30_000)).toMatchObject({ status: 'ready', files: ['pdf'] });
    const requeued = await worker.waitForLog(sweepLine(doc.id, /queued again$/));
    expect(Date.parse(requeued.time as string) - startedAt.getTime()).toBeGreaterThanOrEqual(RENDER_TIMEOUT_MS + GRACE_MS);
    expect(Date.parse(requeued.time as string) - startedAt.getTime()).toBeLessThan(RENDER_LOCK_MS);
    expect(await stack.database.db.document.findUniqueOrThrow({ where: { id: doc.id } })).toMatchObject({ generation: 2, renderAttempts: 2 });
  }, 60_000);

  it('fails a document still rendering after its last attempt with the timeout message, once', async () => {
    worker ??= await stack.start('render-worker');
    const doc = await leftBehind({ status: 'rendering', renderingStartedAt: new Date(Date.now() - 10 * 60_000), renderAttempts: 3 });
    expect(await api.waitForDocument(doc.id, ['ready', 'failed'], 20_000)).toMatchObject({
      status: 'failed',
      files: [],
      error_message: 'Rendering took longer than 3 s; check the template for a broken expression',
    });
    expect(await stack.database.db.document.findUniqueOrThrow({ where: { id: doc.id } })).toMatchObject({ generation: 1, renderAttempts: 3 });
    expect((await stack.database.db.outboxEvent.findMany({ where: { subjectId: doc.id } })).map((event) => event.type)).toEqual(['document.failed']);
  }, 30_000);

  it('gives a document queued again after an attempt, whose render job was lost, a new job', async () => {
    worker ??= await stack.start('render-worker');
    const doc = await leftBehind({ status: 'queued', renderingStartedAt: new Date(Date.now() - 10 * 60_000), renderAttempts: 1 });
    await stack.database.db.$executeRaw`UPDATE documents SET updated_at = now() - interval '10 minutes' WHERE id = ${doc.id}::uuid`;
    expect(await api.waitForDocument(doc.id, ['ready', 'failed'], 3 * SWEEP_INTERVAL_MS + 10_000)).toMatchObject({ status: 'ready', files: ['pdf'] });
    expect(await stack.database.db.document.findUniqueOrThrow({ where: { id: doc.id } })).toMatchObject({ generation: 2, renderAttempts: 2 });
    expect(worker.logs.some(sweepLine(doc.id, /^document queued without a render job; queued again$/))).toBe(true);
  }, 30_000);

  it('gives a document whose gateway died before queueing its job a job', async () => {
    worker ??= await stack.start('render-worker');
    const doc = await leftBehind({ status: 'queued', renderingStartedAt: null, renderAttempts: 0 });
    await stack.database.db.$executeRaw`UPDATE documents SET updated_at = now() - interval '10 minutes' WHERE id = ${doc.id}::uuid`;
    expect(await api.waitForDocument(doc.id, ['ready', 'failed'], 3 * SWEEP_INTERVAL_MS + 10_000)).toMatchObject({ status: 'ready', files: ['pdf'] });
    expect(worker.logs.some(sweepLine(doc.id, /^document queued without a render job; queued again$/))).toBe(true);
  }, 30_000);
});
