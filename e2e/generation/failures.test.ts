import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildDocx, paragraph, startStack, apiClient, table, type ApiClient, type Stack } from '@docgen/testing';
import { solidPng as makePng } from '@docgen/testing';

describe('failures explain themselves; nothing is left rendering', () => {
  let stack: Stack;
  let api: ApiClient;
  let images: Server;
  let imageBase: string;
  let serveImage = false;
  let hungRequests = 0;

  beforeAll(async () => {
    images = createServer((req, res) => {
      if (req.url === '/logo.png' && serveImage) return res.end(makePng(40, 20));
      if (req.url === '/text') return res.end('<html>not an image</html>');
      if (req.url === '/huge.png') return res.end(Buffer.concat([makePng(10, 10), Buffer.alloc(300 * 1024)]));
      if (req.url === '/never.png') return void (hungRequests += 1); // never answers
      res.statusCode = 404;
      res.end('missing');
    });
    images.listen(0, '127.0.0.1');
    await once(images, 'listening');
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    stack = await startStack({
      env: { OUTBOUND_ALLOW_PRIVATE: 'true', MAX_IMAGE_BYTES: String(200 * 1024), RENDER_TIMEOUT_MS: '3000', IMAGE_FETCH_TIMEOUT_MS: '30000' },
    });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    images.closeAllConnections();
    images.close();
  });

  const failWith = async (templateId: string, input: Record<string, unknown>, outputFormat = 'pdf') => {
    const res = await api.call('POST', '/api/v1/documents', { template_id: templateId, input_json: input, output_format: outputFormat });
    expect(res.status).toBe(202);
    const doc = await api.waitForDocument(res.body.id);
    expect(doc.status).toBe('failed');
    expect(doc.files).toEqual([]);
    return doc.error_message as string;
  };

  it('names the token for input problems, at once (no retries)', async () => {
    const template = await api.uploadTemplate(
      buildDocx({ body: paragraph('{client_name} {due}') + table([['{#items}{name}', '{price}{/items}']]) }),
      'invoice.docx',
    );
    await api.call('PATCH', `/api/v1/templates/${template.id}/variables`, { variables: [{ name: 'due', type: 'date' }] });
    const valid = { client_name: 'Acme', due: '2026-11-22', items: [{ name: 'a', price: 1 }] };
    expect(await failWith(template.id, { ...valid, client_name: undefined })).toBe('Missing required token "client_name"');
    expect(await failWith(template.id, { ...valid, items: 'three widgets' })).toBe('Token "items" must be a list of objects');
    expect(await failWith(template.id, { ...valid, due: 'next Tuesday' })).toBe('Token "due" must be a date like 2026-11-22');
    expect(await failWith(template.id, { ...valid, items: [{ name: 'a' }] })).toBe('Missing value for "price" in item 1 of "items"');
    const attempts = await stack.database.db.document.findMany({ where: { templateId: template.id }, select: { renderAttempts: true } });
    expect(attempts.every((d) => d.renderAttempts === 1)).toBe(true);

    // Several problems: every one, summarised in error_message and listed with its path (API.md §9).
    const res = await api.call('POST', '/api/v1/documents', {
      template_id: template.id,
      input_json: { due: 'next Tuesday', items: [{ name: 'a', price: 1 }, { price: 2 }] },
      output_format: 'pdf',
    });
    const doc = await api.waitForDocument(res.body.id);
    expect(doc.error_message).toBe(
      '3 problems: Missing required token "client_name"; Token "due" must be a date like 2026-11-22; Missing value for "name" in item 2 of "items"',
    );
    expect(doc.errors).toEqual([
      { path: 'input_json.client_name', message: 'Missing required token "client_name"' },
      { path: 'input_json.due', message: 'Token "due" must be a date like 2026-11-22' },
      { path: 'input_json.items[1].name', message: 'Missing value for "name" in item 2 of "items"' },
    ]);
    // A document that did not fail for its input has no errors.
    const ok = await api.call('POST', '/api/v1/documents', { template_id: template.id, input_json: valid, output_format: 'docx' });
    expect(await api.waitForDocument(ok.body.id)).not.toHaveProperty('errors');
  });

  it('explains image problems: not fetchable, too large, not an image', async () => {
    const template = await api.uploadTemplate(buildDocx({ body: paragraph('{%logo}') }), 'logo.docx');
    expect(await failWith(template.id, { logo: `${imageBase}/missing.png` })).toBe(`Image "logo" could not be fetched from ${imageBase}/missing.png: HTTP 404`);
    expect(await failWith(template.id, { logo: `${imageBase}/huge.png` })).toBe(
      `Image "logo" could not be fetched from ${imageBase}/huge.png: the response is larger than 200 KiB`,
    );
    expect(await failWith(template.id, { logo: `${imageBase}/text` })).toBe(`Image "logo" at ${imageBase}/text is not a PNG, JPEG or GIF`);
    expect(await failWith(template.id, { logo: 'ftp://example.com/a.png' })).toBe('Image "logo" must be an http(s):// URL or a data: URI');
  });

  it('fails a render that takes longer than RENDER_TIMEOUT_MS with the timeout message', async () => {
    const template = await api.uploadTemplate(buildDocx({ body: table([['{#rows}{a}', '{b}', '{c}{/rows}']]) }), 'huge.docx');
    const rows = Array.from({ length: 6000 }, (_, i) => ({ a: `row ${i}`, b: 'lorem ipsum dolor sit amet', c: i }));
    expect(await failWith(template.id, { rows })).toBe('Rendering took longer than 3 s; check the template for a broken expression');
  }, 60_000);

  it('fails at the render timeout when an image server never answers (IMAGE_FETCH_TIMEOUT_MS is longer)', async () => {
    const template = await api.uploadTemplate(buildDocx({ body: paragraph('{%logo}') }), 'never.docx');
    const res = await api.call('POST', '/api/v1/documents', { template_id: template.id, input_json: { logo: `${imageBase}/never.png` }, output_format: 'pdf' });
    expect(res.status).toBe(202);
    const doc = await api.waitForDocument(res.body.id, ['ready', 'failed'], 20_000);
    expect(doc).toMatchObject({ status: 'failed', files: [], error_message: 'Rendering took longer than 3 s; check the template for a broken expression' });
    expect(hungRequests).toBeGreaterThan(0);
    const row = await stack.database.db.document.findUniqueOrThrow({ where: { id: res.body.id } });
    // Failed by its own worker at the deadline, not by the stuck-document sweep, and not retried.
    const renderingFor = new Date(doc.completed_at).getTime() - row.renderingStartedAt!.getTime();
    // The two times come from different clocks' readings (the start is recorded before the
    // deadline is armed), so a millisecond either way is not a finding.
    expect(renderingFor).toBeGreaterThanOrEqual(3_000 - 5);
    expect(renderingFor).toBeLessThan(3_000 + 1_500);
    expect(row.renderAttempts).toBe(1);
  });

  it('retries a failed document under its idempotency key: same id, queued again, then ready', async () => {
    const template = await api.uploadTemplate(buildDocx({ body: paragraph('{%logo}') }), 'retry.docx');
    const body = { template_id: template.id, input_json: { logo: `${imageBase}/logo.png` }, output_format: 'docx' };
    const first = await api.call('POST', '/api/v1/documents', body, { 'X-Idempotency-Key': 'retry-1' });
    const failed = await api.waitForDocument(first.body.id);
    expect(failed.error_message).toBe(`Image "logo" could not be fetched from ${imageBase}/logo.png: HTTP 404`);

    serveImage = true;
    const retry = await api.call('POST', '/api/v1/documents', body, { 'X-Idempotency-Key': 'retry-1' });
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ id: first.body.id, status: 'queued' });
    expect(retry.body.error_message).toBeUndefined();
    expect(await api.waitForDocument(first.body.id)).toMatchObject({ status: 'ready', files: ['docx'] });

    const events = await stack.database.db.outboxEvent.findMany({ where: { subjectId: first.body.id }, orderBy: { createdAt: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['document.failed', 'document.ready']);
  });

  it('leaves no document in rendering or queued', async () => {
    expect(await stack.database.db.document.count({ where: { status: { in: ['rendering', 'queued'] } } })).toBe(0);
  });
});
