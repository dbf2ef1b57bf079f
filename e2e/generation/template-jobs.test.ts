import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import PizZip from 'pizzip';
import { createTemplatePreviewQueue, previewJobId } from '@docgen/queue';
import { apiClient, buildDocx, paragraph, startStack, type ApiClient, type ApiResponse, type Stack } from '@docgen/testing';

/** Width and height from a PNG's IHDR chunk. */
const pngSize = (png: Buffer) => ({ signature: png.subarray(1, 4).toString(), width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

const INVOICE_HTML = Buffer.from('<!doctype html><html><body><h1>Invoice for {client name}</h1><p>Total: {total}</p></body></html>');

/** Polls the preview (the template's, or `versions/<n>/preview`) until it is no longer being prepared. */
async function previewWhenDone(api: ApiClient, templateId: string, timeoutMs = 60_000, of = 'preview'): Promise<ApiResponse> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.call('GET', `/api/v1/templates/${templateId}/${of}`);
    if (res.status !== 202) return res;
    if (Date.now() > deadline) throw new Error(`preview of ${templateId} still being prepared after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function storedFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

describe('template jobs without a render worker (gateway process alone)', () => {
  let stack: Stack;
  let api: ApiClient;
  let stranger: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ workers: 0, env: { RENDER_TIMEOUT_MS: '3000' } });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    stranger = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  }, 120_000);
  afterAll(() => stack.close());

  it('answers an HTML upload 503 within the deadline when no worker takes it, and stores nothing', async () => {
    const started = Date.now();
    const res = await api.postFile('/api/v1/templates', INVOICE_HTML, 'invoice.html');
    const took = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/No render worker converted the HTML template within 5 s; nothing was stored/);
    expect(took).toBeGreaterThanOrEqual(4_500);
    expect(took).toBeLessThan(10_000);
    expect(await stack.database.db.template.count()).toBe(0);
    expect(await storedFiles(stack.env.STORAGE_DIR!)).toEqual([]);
    // Neither the HTML nor the job is left waiting for a worker that comes later.
    const redis = new Redis(stack.env.REDIS_URL!);
    try {
      expect(await redis.keys(`${stack.env.REDIS_KEY_PREFIX}template-import:*`)).toEqual([]);
      expect(await redis.zcard(`${stack.env.REDIS_KEY_PREFIX}bull:template-imports:wait`)).toBe(0);
    } finally {
      redis.disconnect();
    }
  }, 30_000);

  it('refuses what is not HTML text at once, without a worker (422)', async () => {
    const res = await api.postFile('/api/v1/templates', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff]), 'page.html');
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/binary, not HTML text/);
  });

  it('answers 202 while a preview is being prepared, queues a missing one, 404 for another organisation, then 200 PNG once a worker runs (409 when it cannot be rendered)', async () => {
    const fresh = await api.uploadTemplate(buildDocx({ body: paragraph('Dear {client_name}, your order {order_no} has shipped.') }), 'letter.docx');
    const pending = await api.call('GET', `/api/v1/templates/${fresh.id}/preview`);
    expect(pending.status).toBe(202);
    expect(pending.body).toEqual({ detail: 'The preview is being prepared; try again in a few seconds' });
    expect(pending.headers.get('retry-after')).toBe('2');

    // A template stored before previews existed: no status, no job. Asking for it queues it.
    const old = await api.uploadTemplate(buildDocx({ body: paragraph('Old {thing}') }), 'old.docx');
    await stack.database.db.$executeRaw`UPDATE templates SET preview_status = NULL WHERE id = ${old.id}::uuid`;
    const redis = new Redis(stack.env.REDIS_URL!);
    const previews = createTemplatePreviewQueue(redis, stack.env.REDIS_KEY_PREFIX!);
    try {
      await previews.remove(previewJobId({ templateId: old.id, version: 1 }));
      expect(await previews.getJob(previewJobId({ templateId: old.id, version: 1 }))).toBeUndefined();
      expect((await api.call('GET', `/api/v1/templates/${old.id}/preview`)).status).toBe(202);
      expect(await previews.getJob(previewJobId({ templateId: old.id, version: 1 }))).toBeDefined();
      expect(await stack.database.db.template.findUnique({ where: { id: old.id } })).toMatchObject({ previewStatus: 'pending' });
    } finally {
      await previews.close();
      redis.disconnect();
    }

    // One whose stored file is gone cannot be rendered: after its attempts it says so (409).
    const lost = await api.uploadTemplate(buildDocx({ body: paragraph('Lost {thing}') }), 'lost.docx');
    const lostRow = await stack.database.db.template.findUniqueOrThrow({ where: { id: lost.id } });
    await rm(path.join(stack.env.STORAGE_DIR!, lostRow.fileKey));

    const foreign = await stranger.call('GET', `/api/v1/templates/${fresh.id}/preview`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'Template not found', code: 'template_not_found' });

    await stack.start('render-worker');
    for (const id of [fresh.id, old.id]) {
      const res = await previewWhenDone(api, id);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      const size = pngSize(res.raw);
      expect(size.signature).toBe('PNG');
      expect(size.width).toBeGreaterThanOrEqual(580);
      expect(size.width).toBeLessThanOrEqual(620);
      expect(size.height).toBeGreaterThan(size.width); // a portrait page
    }
    const failed = await previewWhenDone(api, lost.id);
    expect(failed.status).toBe(409);
    expect(failed.body).toEqual({
      detail: 'This template has no preview: its first page could not be rendered (the render worker could not render it; upload the template again)',
      code: 'no_preview',
    });
    // Rendered once: the template's own updated_at did not move.
    const template = await api.call('GET', `/api/v1/templates/${fresh.id}`);
    expect(template.body.updated_at).toBe(template.body.created_at);
    expect((await stranger.call('GET', `/api/v1/templates/${fresh.id}/preview`)).status).toBe(404);
  }, 120_000);
});

describe('HTML import on the render worker (gateway + worker processes, LibreOffice)', () => {
  let stack: Stack;
  let api: ApiClient;
  let flooder: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ env: { TEMPLATE_IMPORTS_PER_ORG: '1' } });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    flooder = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  }, 120_000);
  afterAll(() => stack.close());

  it('turns an HTML upload into a DOCX template (201 with its variables), and previews it', async () => {
    const res = await api.postFile('/api/v1/templates', INVOICE_HTML, 'invoice.html');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'invoice', format: 'html', corrected_tokens: [{ from: 'client name', to: 'client_name' }] });
    expect(res.body.variables.map((v: { name: string }) => v.name)).toEqual(['client_name', 'total']);
    const file = await api.call('GET', `/api/v1/templates/${res.body.id}/file`);
    expect(file.headers.get('content-disposition')).toContain('filename="invoice.docx"');
    expect(
      new PizZip(file.raw)
        .file('word/document.xml')!
        .asText()
        .replace(/<[^>]+>/g, ''),
    ).toContain('Invoice for {client_name}');

    const preview = await previewWhenDone(api, res.body.id);
    expect(preview.status).toBe(200);
    expect(pngSize(preview.raw).width).toBeGreaterThanOrEqual(580);
    if (process.env.KEEP_PREVIEW) await writeFile(process.env.KEEP_PREVIEW, preview.raw);
  }, 60_000);

  it('converts and checks a new version like an upload, previews each version of its own, and keeps the published one rendering', async () => {
    const first = await api.postFile('/api/v1/templates', INVOICE_HTML, 'invoice.html');
    const id = first.body.id as string;
    const html = '<!doctype html><html><body><table border="1"><tr><td>Second</td><td>{total}</td></tr></table><p>{note}</p></body></html>';
    const second = await api.postFile(`/api/v1/templates/${id}/versions`, Buffer.from(html), 'invoice-2.html');
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ version: 2, status: 'draft' });
    expect(second.body.variables.map((v: { name: string }) => v.name)).toEqual(['total', 'note']);
    const [one, two, published] = await Promise.all([
      previewWhenDone(api, id, 60_000, 'versions/1/preview'),
      previewWhenDone(api, id, 60_000, 'versions/2/preview'),
      previewWhenDone(api, id),
    ]);
    expect([one.status, two.status, published.status]).toEqual([200, 200, 200]);
    expect(one.raw.equals(two.raw)).toBe(false);
    expect(published.raw.equals(one.raw)).toBe(true);
    // A version's page never changes; the template's own is the published version's, which a publish replaces.
    expect([one.headers.get('cache-control'), published.headers.get('cache-control')]).toEqual(['private, max-age=3600', 'private, no-cache']);
    const file = await api.call('GET', `/api/v1/templates/${id}/versions/2/file`);
    expect(
      new PizZip(file.raw)
        .file('word/document.xml')!
        .asText()
        .replace(/<[^>]+>/g, ''),
    ).toContain('Second');
  }, 90_000);

  it('still answers 422 with every error for HTML with broken tags, and stores nothing', async () => {
    const before = await stack.database.db.template.count();
    const html = Buffer.from('<html><body><p>{#items}{name}</p><p>{/things}</p></body></html>');
    const res = await api.postFile('/api/v1/templates', html, 'broken.html');
    expect(res.status).toBe(422);
    expect(res.body.errors.length).toBeGreaterThanOrEqual(1);
    expect(res.body.errors[0]).toMatchObject({ path: 'file', message: expect.any(String) });
    expect(await stack.database.db.template.count()).toBe(before);
  }, 60_000);

  it("bounds one organisation's imports in flight (429 + Retry-After beyond), so another organisation's upload goes through", async () => {
    const flood = Array.from({ length: 6 }, (_, i) => flooder.postFile('/api/v1/templates', INVOICE_HTML, `flood-${i}.html`));
    const started = Date.now();
    const other = await api.postFile('/api/v1/templates', INVOICE_HTML, 'meanwhile.html');
    const otherMs = Date.now() - started;
    expect(other.status).toBe(201);
    const answers = await Promise.all(flood);
    const statuses = answers.map((res) => res.status);
    expect(statuses.every((status) => status === 201 || status === 429)).toBe(true);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(4);
    // Refused by the import slots (or, for one that got past its import while another was
    // being checked, by the upload checks' share per organisation).
    const refused = answers.find((res) => res.status === 429 && /HTML template upload being converted/.test(res.body.detail))!;
    expect(refused.body.detail).toMatch(/already has 1 HTML template upload being converted; try again when one has finished/);
    expect(refused.headers.get('retry-after')).toBe('2');
    // With the bound at 1 the other organisation waits behind at most one import of the flooder.
    expect(otherMs).toBeLessThan(30_000);
    // The slots were given back: the flooder can upload again.
    expect((await flooder.postFile('/api/v1/templates', INVOICE_HTML, 'later.html')).status).toBe(201);
  }, 120_000);
});
