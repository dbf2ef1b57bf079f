import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect } from 'node:net';
import { z } from 'zod';
import { loadConfig } from '@docgen/config';
import { createLogger } from '@docgen/observability';
import { createStorage, documentFileKey, documentFilesPrefix, storageEnv } from '@docgen/storage';
import { apiClient, startStack, type ApiClient, type Stack } from '@docgen/testing';
import { purgeExpired } from '@docgen/documents';
import { docxText, eventually, fixture } from '../support';

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

/** The id of a ready DOCX letter to `first last`, from a template of the caller's own. */
async function readyLetter(api: ApiClient, first: string, last: string): Promise<string> {
  const template = await api.uploadTemplate(fixture('tag-example.docx'), 'letter.docx');
  const created = await api.call('POST', '/api/v1/documents/', {
    template_id: template.id,
    input_json: { first_name: first, last_name: last, phone: '1', description: 'Engine' },
    output_format: 'docx',
  });
  return (await api.waitForDocument(created.body.id as string)).id;
}

describe('downloads streamed from S3 to clients that stop reading, or read slowly', () => {
  let stack: Stack;
  let api: ApiClient;
  let apiKey: string;
  let docId: string;
  let large: Buffer;
  let gateway: URL;
  let other: { apiKey: string };
  let otherDocId: string;
  const download = (id: string, key: string) => fetch(`${stack.gateways[0]!.url}/api/v1/documents/${id}/download`, { headers: { 'X-API-Key': key } });
  const cutLog = (line: Record<string, unknown>) => line.msg === 'download cut: its client read nothing for too long';

  beforeAll(async () => {
    stack = await startStack({ storage: 's3', env: { DOWNLOAD_IDLE_TIMEOUT_MS: '1000', DOWNLOADS_PER_ORG: '1' } });
    apiKey = (await stack.organization()).apiKey;
    api = apiClient(stack.gateways[0]!.url, apiKey);
    gateway = new URL(stack.gateways[0]!.url);
    docId = await readyLetter(api, 'Ada', 'Lovelace');
    // A file far larger than every socket buffer between S3, the gateway and the client.
    const storage = createStorage(loadConfig(z.object(storageEnv), stack.env));
    const row = await stack.database.db.document.findUniqueOrThrow({ where: { id: docId } });
    large = randomBytes(64 * 1024 * 1024);
    await storage.put(documentFileKey(row, 'docx'), large);
    // Another organisation with a document of its own (an ordinary, small one).
    other = await stack.organization();
    otherDocId = await readyLetter(apiClient(stack.gateways[0]!.url, other.apiKey), 'Grace', 'Hopper');
  }, 120_000);
  afterAll(() => stack.close());

  /** A raw connection asking for the download, its first bytes (the headers) read. */
  async function startDownload() {
    const socket = connect(Number(gateway.port), gateway.hostname);
    await once(socket, 'connect');
    socket.write(`GET /api/v1/documents/${docId}/download HTTP/1.1\r\nHost: ${gateway.host}\r\nX-API-Key: ${apiKey}\r\n\r\n`);
    const [first] = (await once(socket, 'data')) as [Buffer];
    socket.on('error', () => undefined); // the gateway may reset rather than close
    return { socket, first };
  }

  it("is cut after DOWNLOAD_IDLE_TIMEOUT_MS; meanwhile it holds only its organisation's turn, which the next download then gets", async () => {
    const stalled = await startDownload();
    stalled.socket.pause(); // reads nothing from here on
    // The organisation's one turn is taken (DOWNLOADS_PER_ORG=1): its next download waits for it...
    let nextAt = 0;
    const next = download(docId, apiKey).then((response) => ((nextAt = Date.now()), response));
    // ...while a preview being prepared, which streams nothing, takes no turn: it answers at once...
    const { templateId } = await stack.database.db.document.findUniqueOrThrow({ where: { id: docId } });
    await stack.database.db.template.update({ where: { id: templateId! }, data: { previewStatus: 'pending' } });
    expect((await api.call('GET', `/api/v1/templates/${templateId}/preview`)).status).toBe(202);
    const previewAt = Date.now();
    // ...and another organisation's download is not held back.
    const others = await download(otherDocId, other.apiKey);
    expect(others.status).toBe(200);
    expect(docxText(Buffer.from(await others.arrayBuffer()))).toContain('Hopper');
    const othersAt = Date.now();
    const cut = await stack.gateways[0]!.waitForLog(cutLog, 15_000);
    const cutAt = Date.parse(cut.time as string);
    expect(Math.max(previewAt, othersAt)).toBeLessThan(cutAt);
    let received = stalled.first.length;
    stalled.socket.on('data', (chunk: Buffer) => (received += chunk.length));
    stalled.socket.resume();
    await once(stalled.socket, 'close');
    expect(received).toBeLessThan(large.length);

    const whole = await next;
    expect(nextAt).toBeGreaterThanOrEqual(cutAt); // it had to wait for the stalled one's turn
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(large)).toBe(true);
  }, 120_000);

  it('gives back the turn of a download pipelined behind a stalled one on the same connection', async () => {
    const socket = connect(Number(gateway.port), gateway.hostname);
    await once(socket, 'connect');
    socket.on('error', () => undefined);
    const logsBefore = stack.gateways[0]!.logs.filter(cutLog).length;
    // One write, two requests: the large one first, then the other organisation's small one; nothing is read.
    socket.write(
      `GET /api/v1/documents/${docId}/download HTTP/1.1\r\nHost: ${gateway.host}\r\nX-API-Key: ${apiKey}\r\n\r\n` +
        `GET /api/v1/documents/${otherDocId}/download HTTP/1.1\r\nHost: ${gateway.host}\r\nX-API-Key: ${other.apiKey}\r\n\r\n`,
    );
    socket.pause();
    await eventually(() => stack.gateways[0]!.logs.filter(cutLog).length > logsBefore, 'the stalled download cut', 15_000);
    socket.destroy();
    // Both organisations' one turn is free again: their downloads go through.
    const [mine, theirs] = await Promise.all([download(docId, apiKey), download(otherDocId, other.apiKey)]);
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    expect((await mine.arrayBuffer()).byteLength).toBe(large.length);
    expect(docxText(Buffer.from(await theirs.arrayBuffer()))).toContain('Hopper');
  }, 60_000);

  const errorLines = () => stack.gateways[0]!.logs.filter((line) => ['error', 'fatal'].includes(line.level as string));

  it('logs a client that leaves mid-download as such, not as an error of ours', async () => {
    const errorsBefore = errorLines().length;
    const { socket } = await startDownload();
    socket.destroy(); // 64 MiB still to come
    await stack.gateways[0]!.waitForLog((line) => line.msg === 'download ended early: its client closed the connection', 15_000);
    expect(errorLines().slice(errorsBefore)).toEqual([]);
    // Its turn is back (DOWNLOADS_PER_ORG=1): the next download goes through whole.
    expect((await (await download(docId, apiKey)).arrayBuffer()).byteLength).toBe(large.length);
  }, 60_000);

  it('is not cut while its client keeps reading, however slowly, for longer than DOWNLOAD_IDLE_TIMEOUT_MS in all', async () => {
    const started = Date.now();
    const { socket, first } = await startDownload();
    const chunks = [first];
    let length = first.length;
    let sinceTick = 0;
    // About 4 MiB each quarter of a second: never a second without progress, some 4 s in all.
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      sinceTick += chunk.length;
      if (sinceTick >= 4 * 1024 * 1024) socket.pause();
    });
    const ended = once(socket, 'close');
    while (length < large.length && !socket.closed) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      sinceTick = 0;
      socket.resume();
    }
    socket.destroy();
    await ended;
    const response = Buffer.concat(chunks);
    const body = response.subarray(response.indexOf('\r\n\r\n') + 4);
    expect(Date.now() - started).toBeGreaterThan(2_000);
    expect(body.length).toBe(large.length);
    expect(body.equals(large)).toBe(true);
  }, 120_000);
});
