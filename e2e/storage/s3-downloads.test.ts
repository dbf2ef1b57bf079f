import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { z } from 'zod';
import { loadConfig } from '@docgen/config';
import { createLogger } from '@docgen/observability';
import { createStorage, documentFileKey, documentFilesPrefix, storageEnv } from '@docgen/storage';
import { apiClient, startStack, type ApiClient, type Stack } from '@docgen/testing';
import { purgeExpired } from '@docgen/documents';
import { docxText, fixture } from '../support';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Downloads on S3 storage: presigned redirects (DOWNLOAD_REDIRECT) and what retention leaves. */
describe('downloads from S3 storage, redirected, and after retention', () => {
  let stack: Stack;
  let api: ApiClient;
  let apiKey: string;

  beforeAll(async () => {
    stack = await startStack({ storage: 's3', env: { DOWNLOAD_REDIRECT: 'true', DOWNLOAD_URL_TTL_S: '120' } });
    apiKey = (await stack.organization()).apiKey;
    api = apiClient(stack.gateways[0]!.url, apiKey);
  }, 120_000);
  afterAll(() => stack.close());

  const download = (id: string) => fetch(`${stack.gateways[0]!.url}/api/v1/documents/${id}/download`, { headers: { 'X-API-Key': apiKey }, redirect: 'manual' });

  it('answers 302 to a presigned URL with the same headers, and 410 once retention purged the document', async () => {
    const template = await api.uploadTemplate(fixture('tag-example.docx'), 'letter.docx');
    const created = await api.call('POST', '/api/v1/documents/', {
      template_id: template.id,
      input_json: { first_name: 'Ada', last_name: 'Lovelace', phone: '1', description: 'Engine' },
      output_format: 'docx',
    });
    const doc = await api.waitForDocument(created.body.id as string);
    expect(doc).toMatchObject({ status: 'ready', files: ['docx'], purged_at: null });

    const redirect = await download(doc.id);
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get('location')!;
    expect(location.startsWith(stack.s3!.endpoint)).toBe(true);
    expect(new URL(location).searchParams.get('X-Amz-Expires')).toBe('120');
    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="letter-${doc.id}.docx"`);
    expect(docxText(Buffer.from(await file.arrayBuffer()))).toContain('Lovelace Ada');

    // A short clock: the document is 31 days old and retention keeps 30.
    await stack.database.db.document.update({ where: { id: doc.id }, data: { createdAt: new Date(Date.now() - 31 * DAY_MS) } });
    const storage = createStorage(loadConfig(z.object(storageEnv), stack.env));
    const row = await stack.database.db.document.findUniqueOrThrow({ where: { id: doc.id } });
    expect(await storage.list(documentFilesPrefix(row))).toHaveLength(1);
    const purged = await purgeExpired({ db: stack.database.db, storage, logger: createLogger('test', 'silent') }, { retentionDays: 30 });
    expect(purged.documents).toEqual([doc.id]);
    expect(await storage.list(documentFilesPrefix(row))).toEqual([]);

    const after = await api.call('GET', `/api/v1/documents/${doc.id}`);
    expect(after.body).toMatchObject({ status: 'ready', files: [], input_json: {}, purged_at: expect.any(String) });
    const gone = await download(doc.id);
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as { detail: string }).detail).toMatch(/removed .* by the retention policy/);
  });
});

describe('a download streamed from S3 to a client that stops reading', () => {
  let stack: Stack;
  let api: ApiClient;
  let apiKey: string;

  beforeAll(async () => {
    stack = await startStack({ storage: 's3', env: { DOWNLOAD_IDLE_TIMEOUT_MS: '1000' } });
    apiKey = (await stack.organization()).apiKey;
    api = apiClient(stack.gateways[0]!.url, apiKey);
  }, 120_000);
  afterAll(() => stack.close());

  it('is cut after DOWNLOAD_IDLE_TIMEOUT_MS, giving its storage stream back, and the next download is whole', async () => {
    const template = await api.uploadTemplate(fixture('tag-example.docx'), 'letter.docx');
    const created = await api.call('POST', '/api/v1/documents/', {
      template_id: template.id,
      input_json: { first_name: 'Ada', last_name: 'Lovelace', phone: '1', description: 'Engine' },
      output_format: 'docx',
    });
    const doc = await api.waitForDocument(created.body.id as string);
    // A file far larger than every socket buffer between S3, the gateway and the client.
    const storage = createStorage(loadConfig(z.object(storageEnv), stack.env));
    const row = await stack.database.db.document.findUniqueOrThrow({ where: { id: doc.id } });
    const large = randomBytes(64 * 1024 * 1024);
    await storage.put(documentFileKey(row, 'docx'), large);

    const gateway = new URL(stack.gateways[0]!.url);
    const socket = connect(Number(gateway.port), gateway.hostname);
    await once(socket, 'connect');
    socket.pause(); // reads nothing from here on
    socket.write(`GET /api/v1/documents/${doc.id}/download HTTP/1.1\r\nHost: ${gateway.host}\r\nX-API-Key: ${apiKey}\r\n\r\n`);
    await stack.gateways[0]!.waitForLog((line) => line.msg === 'download cut: its client read nothing for too long', 15_000);
    // What reached the client before the cut ends short of the file.
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('error', () => undefined); // the gateway may reset rather than close
    socket.resume();
    await once(socket, 'close');
    expect(received).toBeLessThan(large.length);

    const whole = await fetch(`${stack.gateways[0]!.url}/api/v1/documents/${doc.id}/download`, { headers: { 'X-API-Key': apiKey } });
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(large)).toBe(true);
  }, 120_000);
});
