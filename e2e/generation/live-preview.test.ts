import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { eventually } from '../support';
import { apiClient, buildDocx, paragraph, pngDataUri, solidPng, startCanary, startStack, type ApiClient, type Canary, type Stack } from '@docgen/testing';

/** POST /templates/{id}/preview (API.md §14): the filled first page from the warm pools, nothing stored. */

const invoiceDocx = buildDocx({
  body: [
    paragraph('Invoice for {client_name}'),
    paragraph('Total {total}'),
    paragraph('{#items}'),
    paragraph('Item: {description}'),
    paragraph('{/items}'),
    paragraph('{%logo}'),
  ].join(''),
});
const INPUT = {
  client_name: 'Ada Lovelace',
  total: '1,250.00',
  items: [{ description: 'Analytical engine, one unit' }],
  logo: pngDataUri(120, 40, [20, 90, 200]),
};
const letterHtml = Buffer.from('<!doctype html><html><body><h1 style="color:#123">Dear {name}</h1><p>Your order {order} has shipped.</p></body></html>');

const decode = (png: Buffer) => PNG.sync.read(png);
/** How many pixels of two same-sized pages differ (pixelmatch's default threshold). */
const differingPixels = (a: PNG, b: PNG) => pixelmatch(a.data, b.data, null, a.width, a.height);
/** Pixels that are not near-white: a page with text and a logo has many. */
const inkedPixels = (png: PNG) => {
  let count = 0;
  for (let i = 0; i < png.data.length; i += 4) if (png.data[i]! < 200 || png.data[i + 1]! < 200 || png.data[i + 2]! < 200) count += 1;
  return count;
};

async function storedFiles(dir: string): Promise<string[]> {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

describe('live preview of the filled first page', () => {
  let stack: Stack;
  let api: ApiClient;
  let stranger: ApiClient;
  let templateId: string;
  let redis: Redis;
  let canary: Canary;

  beforeAll(async () => {
    stack = await startStack({ env: { PREVIEW_RATE_LIMIT: '1000' } });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    stranger = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    templateId = (await api.uploadTemplate(invoiceDocx, 'Invoice.docx')).id;
    // The stored preview of the template as uploaded (queued at upload) is a file of its own: let it land first.
    await eventually(async () => (await api.call('GET', `/api/v1/templates/${templateId}/preview`)).status === 200, 'the stored template preview');
    redis = new Redis(stack.env.REDIS_URL!);
    canary = await startCanary();
  }, 120_000);
  afterAll(async () => {
    redis?.disconnect();
    await canary?.close();
    await stack?.close();
  });

  const preview = (client: ApiClient, id: string, body: unknown, query = '') => client.call('POST', `/api/v1/templates/${id}/preview${query}`, body);

  it('answers a PNG of the filled first page, which follows the input and stores nothing', async () => {
    const filesBefore = await storedFiles(stack.env.STORAGE_DIR!);
    const first = await preview(api, templateId, { input_json: INPUT });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('cache-control')).toBe('no-store');
    const a = decode(first.raw);
    // An A4 page (11906 x 16838 twips), its longer side 1100 px.
    expect(a.height).toBe(1100);
    expect(a.width).toBeGreaterThanOrEqual(776);
    expect(a.width).toBeLessThanOrEqual(780);
    expect(inkedPixels(a)).toBeGreaterThan(2_000);

    const again = decode((await preview(api, templateId, { input_json: INPUT })).raw);
    expect(differingPixels(a, again)).toBe(0); // the same input, the same page

    const other = await preview(api, templateId, { input_json: { ...INPUT, client_name: 'Grace Hopper', total: '99.00' } });
    expect(other.status).toBe(200);
    const b = decode(other.raw);
    expect([b.width, b.height]).toEqual([a.width, a.height]);
    expect(differingPixels(a, b)).toBeGreaterThan(200);

    // Nothing stored: no document, no file, and nothing left waiting in Redis.
    expect(await stack.database.db.document.count()).toBe(0);
    expect(await storedFiles(stack.env.STORAGE_DIR!)).toEqual(filesBefore);
    expect(await redis.keys(`${stack.env.REDIS_KEY_PREFIX}live-preview:*`)).toEqual([]);
  }, 60_000);

  it('is the page the document gets: the same pixels as page 1 of the generated PDF', async () => {
    const png = decode((await preview(api, templateId, { input_json: INPUT })).raw);
    const created = await api.call('POST', '/api/v1/documents', { template_id: templateId, input_json: INPUT, output_format: 'pdf' });
    expect((await api.waitForDocument(created.body.id as string)).status).toBe('ready');
    const pdf = (await api.call('GET', `/api/v1/documents/${created.body.id}/download`)).raw;
    const dir = mkdtempSync(path.join(tmpdir(), 'docgen-live-preview-'));
    try {
      writeFileSync(path.join(dir, 'doc.pdf'), pdf);
      execFileSync('pdftoppm', ['-png', '-f', '1', '-l', '1', '-scale-to', '1100', path.join(dir, 'doc.pdf'), path.join(dir, 'page')]);
      const page = decode(
        readFileSync(
          path.join(
            dir,
            readdirSync(dir).find((f) => f.startsWith('page'))!,
          ),
        ),
      );
      expect([page.width, page.height]).toEqual([png.width, png.height]);
      expect(differingPixels(png, page)).toBeLessThan(png.width * png.height * 0.001);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('prints an HTML template through Chromium, following the input', async () => {
    const html = await api.postFile('/api/v1/templates', letterHtml, 'letter.html');
    expect(html.status).toBe(201);
    const one = await preview(api, html.body.id as string, { input_json: { name: 'Ada', order: 'A-1' } });
    const two = await preview(api, html.body.id as string, { input_json: { name: 'Grace', order: 'B-22' } });
    expect([one.status, two.status]).toEqual([200, 200]);
    const [a, b] = [decode(one.raw), decode(two.raw)];
    expect(a.height).toBe(1100);
    expect(inkedPixels(a)).toBeGreaterThan(500);
    expect(differingPixels(a, b)).toBeGreaterThan(100);
  }, 60_000);

  it('lists every input problem as a 422, in the shape of §9, before any worker is asked', async () => {
    const res = await preview(api, templateId, { input_json: { items: 'not a list', logo: INPUT.logo } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    const paths = (res.body.errors as { path: string; message: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['input_json.client_name', 'input_json.items', 'input_json.total']);
    expect(res.body.detail).toMatch(/^3 problems: /);

    // The body itself, as POST /documents checks it.
    const bad = await preview(api, templateId, { input_json: 'text', template_version: 0 });
    expect(bad.status).toBe(422);
    expect((bad.body.errors as { path: string }[]).map((e) => e.path).sort()).toEqual(['input_json', 'template_version']);
    // Past PostgreSQL's integer: a validation problem, never a statement the database refuses.
    const huge = await preview(api, templateId, { input_json: INPUT, template_version: 3_000_000_000 });
    expect(huge.status).toBe(422);
    expect(huge.body.errors).toEqual([{ path: 'template_version', message: 'must be a version number' }]);
    const nul = await preview(api, templateId, { input_json: { ...INPUT, client_name: 'A\u0000B' } });
    expect(nul.status).toBe(422);
    expect(nul.body.errors[0].path).toBe('input_json.client_name');
  });

  it('refuses what the worker finds at render time (an image behind the outbound guard) as a 422, fetching nothing', async () => {
    const res = await preview(api, templateId, { input_json: { ...INPUT, logo: `${canary.url}/logo.png` } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.detail).toMatch(/private or reserved network address/);
    expect(res.body.errors).toEqual([{ path: 'input_json', message: res.body.detail }]);
    expect(canary.connections()).toBe(0);
  });

  it("is 404 for another organisation's template, the other environment, and a version the template does not have", async () => {
    const foreign = await preview(stranger, templateId, { input_json: INPUT });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: 'Template not found', code: 'template_not_found' });
    expect((await preview(api, templateId, { input_json: INPUT }, '?is_uat=true')).status).toBe(404);
    const version = await preview(api, templateId, { input_json: INPUT, template_version: 2 });
    expect(version.status).toBe(404);
    expect(version.body).toEqual({ detail: 'Template version not found', code: 'version_not_found' });
    expect((await preview(api, templateId, { input_json: INPUT, template_version: 1 })).status).toBe(200);
  });

  it('limits each API key to PREVIEW_RATE_LIMIT a minute (429 with Retry-After), on every gateway', async () => {
    const limited = await stack.start('gateway', { PREVIEW_RATE_LIMIT: '2' });
    const org = await stack.organization();
    const client = apiClient(limited.url, org.apiKey);
    const own = (await client.uploadTemplate(invoiceDocx, 'Invoice.docx')).id;
    // A request that fails its input still counts: the limit is on asking.
    expect((await preview(client, own, { input_json: {} })).status).toBe(422);
    expect((await preview(client, own, { input_json: INPUT })).status).toBe(200);
    const refused = await preview(client, own, { input_json: INPUT });
    expect(refused.status).toBe(429);
    expect(Object.keys(refused.body)).toEqual(['detail']);
    expect(refused.body.detail).toMatch(/^Too many previews: at most 2 a minute for each person or API key; try again in \d+ s\.$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // Another API key is not held back, and the organisation's other requests still go through.
    expect((await client.call('GET', `/api/v1/templates/${own}`)).status).toBe(200);
    expect((await preview(api, templateId, { input_json: INPUT })).status).toBe(200);
  }, 120_000);
});

describe('live preview without a render worker', () => {
  let stack: Stack;
  let api: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ workers: 0, env: { PREVIEW_TIMEOUT_MS: '1000' } });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  }, 120_000);
  afterAll(() => stack?.close());

  it('answers 503 once PREVIEW_TIMEOUT_MS (+1 s) has passed, and leaves neither the job nor the request behind', async () => {
    const { id } = await api.uploadTemplate(invoiceDocx, 'Invoice.docx');
    const redis = new Redis(stack.env.REDIS_URL!);
    try {
      const started = Date.now();
      const answer = api.call('POST', `/api/v1/templates/${id}/preview`, { input_json: INPUT });
      answer.catch(() => undefined); // awaited below unless a step before it fails
      // As a worker whose PNG was stored just before the deadline and whose answer came too late: the gateway drops it too.
      await eventually(async () => (await redis.llen(`${stack.env.REDIS_KEY_PREFIX}bull:live-previews:wait`)) > 0, 'the preview job queued');
      const jobId = (await redis.lindex(`${stack.env.REDIS_KEY_PREFIX}bull:live-previews:wait`, 0))!;
      await redis.set(`${stack.env.REDIS_KEY_PREFIX}live-preview:${jobId}:png`, 'a page', 'PX', 30_000);
      const res = await answer;
      const took = Date.now() - started;
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: 'No render worker rendered the preview within 2 s; please try again shortly.', code: 'dependency_unavailable' });
      // The template page asks again by itself after this.
      expect(res.headers.get('retry-after')).toBe('2');
      expect(took).toBeGreaterThanOrEqual(1_900);
      expect(took).toBeLessThan(10_000);
      expect(await redis.keys(`${stack.env.REDIS_KEY_PREFIX}live-preview:*`)).toEqual([]);
      expect(await redis.llen(`${stack.env.REDIS_KEY_PREFIX}bull:live-previews:wait`)).toBe(0);
    } finally {
      redis.disconnect();
    }
    expect(await stack.database.db.document.count()).toBe(0);
  }, 60_000);
});

describe('live preview that runs out of time', () => {
  let stack: Stack;
  let api: ApiClient;
  let images: Server;
  let templateId: string;
  let neverUrl: string;

  beforeAll(async () => {
    // An image server that never answers: a fill that takes all the time it is given.
    // /late.png answers a logo after a second (a preview a page can leave while a worker renders it).
    images = createServer((req, res) => {
      if (req.url === '/late.png') setTimeout(() => res.end(solidPng(120, 40, [20, 90, 200])), 1_000);
    });
    images.listen(0, '127.0.0.1');
    await once(images, 'listening');
    neverUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/never.png`;
    stack = await startStack({
      env: { PREVIEW_TIMEOUT_MS: '3000', OUTBOUND_ALLOW_PRIVATE: 'true', IMAGE_FETCH_TIMEOUT_MS: '30000', PREVIEW_RATE_LIMIT: '1000' },
    });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    templateId = (await api.uploadTemplate(invoiceDocx, 'Invoice.docx')).id;
  }, 120_000);
  afterAll(async () => {
    images?.closeAllConnections();
    images?.close();
    await stack?.close();
  });

  const slowInput = () => ({ ...INPUT, logo: neverUrl });

  it('blames the template (422) when the worker had the time and the fill used it all', async () => {
    const res = await api.call('POST', `/api/v1/templates/${templateId}/preview`, { input_json: slowInput() });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 422,
      body: expect.objectContaining({ detail: 'The preview took longer than 3 s; check the template for a broken expression or fewer, smaller images' }),
    });
  }, 60_000);

  it('asks again later (503 with Retry-After) when the preview spent most of its time waiting for a busy worker', async () => {
    // The test stack's one live-preview slot is taken by a fill that runs to its deadline; the
    // second preview waits behind it and is taken with a third of its time left.
    const first = api.call('POST', `/api/v1/templates/${templateId}/preview`, { input_json: slowInput() });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const second = await api.call('POST', `/api/v1/templates/${templateId}/preview`, { input_json: slowInput() });
    expect((await first).status).toBe(422);
    expect({ status: second.status, code: second.body.code, retryAfter: second.headers.get('retry-after') }).toEqual({
      status: 503,
      code: 'dependency_unavailable',
      retryAfter: '2',
    });
  }, 60_000);

  it('lets one organisation have LIVE_PREVIEWS_PER_ORG previews in flight across gateways (429 beyond), and frees one when its caller leaves: at once if no worker has it, else once the worker is done', async () => {
    const [capped, alsoCapped] = [
      await stack.start('gateway', { LIVE_PREVIEWS_PER_ORG: '1', PREVIEW_RATE_LIMIT: '1000' }),
      await stack.start('gateway', { LIVE_PREVIEWS_PER_ORG: '1', PREVIEW_RATE_LIMIT: '1000' }),
    ];
    const [one, two] = [await stack.organization(), await stack.organization()];
    const [oneTemplate, twoTemplate] = [
      (await apiClient(capped.url, one.apiKey).uploadTemplate(invoiceDocx, 'Invoice.docx')).id,
      (await apiClient(capped.url, two.apiKey).uploadTemplate(invoiceDocx, 'Invoice.docx')).id,
    ];
    const redisKeys = new Redis(stack.env.REDIS_URL!);
    const prefix = stack.env.REDIS_KEY_PREFIX!;
    const slotsOf = (org: { organizationId: string }) => redisKeys.zcard(`${prefix}live-previews:in-flight:${org.organizationId}`);
    const queued = () => redisKeys.llen(`${prefix}bull:live-previews:wait`);
    const rendering = () => redisKeys.llen(`${prefix}bull:live-previews:active`);
    /** A preview whose fill waits for an image that never comes, from a caller who can leave. */
    const leavable = (url: string, org: { apiKey: string }, id: string) => {
      const leaving = new AbortController();
      const answered = fetch(`${url}/api/v1/templates/${id}/preview`, {
        method: 'POST',
        headers: { 'X-API-Key': org.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ input_json: slowInput() }),
        signal: leaving.signal,
      }).catch((error: unknown) => error);
      return { leave: () => leaving.abort(), answered };
    };
    try {
      // Organisation one's preview holds its one slot, and the test stack's one worker slot for previews.
      const first = leavable(capped.url, one, oneTemplate);
      await eventually(async () => (await slotsOf(one)) === 1 && (await rendering()) === 1, 'the first preview on a worker');
      const refused = await apiClient(alsoCapped.url, one.apiKey).call('POST', `/api/v1/templates/${oneTemplate}/preview`, { input_json: INPUT });
      expect({ status: refused.status, body: refused.body, retryAfter: refused.headers.get('retry-after') }).toEqual({
        status: 429,
        body: { detail: 'This organisation already has 1 live preview being rendered; try again in a moment' },
        retryAfter: '2',
      });

      // Organisation two is not held back on the same capped gateway: its preview is queued behind the first.
      const second = leavable(capped.url, two, twoTemplate);
      await eventually(async () => (await slotsOf(two)) === 1 && (await queued()) === 1, "the other organisation's preview queued");
      // Its page moves on (the author typed again): the job leaves the queue and the slot is free at once.
      second.leave();
      await second.answered;
      await eventually(async () => (await slotsOf(two)) === 0 && (await queued()) === 0, 'the queued preview taken back', 1_500);

      // The first one's page leaves too, but a worker is rendering it: the slot stays taken until the worker is done.
      first.leave();
      await first.answered;
      await eventually(async () => (await slotsOf(one)) === 0, 'the slot given back once the worker was done', 15_000);
      expect(await rendering()).toBe(0);
      expect(await redisKeys.keys(`${prefix}live-preview:*`)).toEqual([]);

      // Left while a worker renders a page that comes out: the page is dropped at once, not kept for its 30 s.
      const lateLogo = neverUrl.replace('/never.png', '/late.png');
      const leaving = new AbortController();
      const answered = fetch(`${capped.url}/api/v1/templates/${oneTemplate}/preview`, {
        method: 'POST',
        headers: { 'X-API-Key': one.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ input_json: { ...INPUT, logo: lateLogo } }),
        signal: leaving.signal,
      }).catch((error: unknown) => error);
      await eventually(async () => (await rendering()) === 1, 'the late preview on a worker');
      leaving.abort();
      await answered;
      await eventually(async () => (await slotsOf(one)) === 0, 'the slot given back once the worker was done', 15_000);
      expect(await redisKeys.keys(`${prefix}live-preview:*`)).toEqual([]);
    } finally {
      redisKeys.disconnect();
    }
  }, 60_000);
});
