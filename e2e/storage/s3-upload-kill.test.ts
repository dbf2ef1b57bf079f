import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { S3FileStorage, documentFilesPrefix } from '@docgen/storage';
import { apiClient, buildDocx, paragraph, startStack, pdfText, type ApiClient, type RunningService, type Stack } from '@docgen/testing';

/**
 * A loopback TCP proxy in front of the S3 server. When the first request to store a document
 * file goes through, it lets half of that chunk through, then calls `onUpload` (the test kills
 * the worker) and cuts both sides: the store sees an upload that stops mid-body.
 */
async function startCuttingProxy(target: URL, onUpload: () => void): Promise<{ url: string; cut: Promise<void>; close: () => Promise<void> }> {
  let signalCut!: () => void;
  const cut = new Promise<void>((resolve) => (signalCut = resolve));
  let done = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    // After the cut the victim is dying: nothing more of its (retried) uploads gets through.
    if (done) return void client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      if (done) return void client.destroy();
      if (/^PUT \S*\/documents\//m.test(chunk.toString('latin1'))) {
        done = true;
        upstream.write(chunk.subarray(0, Math.floor(chunk.length / 2)));
        onUpload();
        client.destroy();
        upstream.destroy();
        signalCut();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('S3: a worker killed mid-upload', () => {
  let stack: Stack;
  let api: ApiClient;
  let organizationId: string;

  beforeAll(async () => {
    stack = await startStack({ storage: 's3', workers: 0, env: { RENDER_LOCK_MS: '2000' } });
    const organization = await stack.organization();
    organizationId = organization.organizationId;
    api = apiClient(stack.gateways[0]!.url, organization.apiKey);
  }, 60_000);
  afterAll(() => stack.close());

  it('leaves nothing a reader can see as the document, which still ends ready on another worker', async () => {
    const s3 = stack.s3!;
    let victim: RunningService | undefined;
    const proxy = await startCuttingProxy(new URL(s3.endpoint), () => victim?.process.kill('SIGKILL'));
    try {
      victim = await stack.start('render-worker', { S3_ENDPOINT: proxy.url });
      const template = await api.uploadTemplate(buildDocx({ body: paragraph('Invoice for {client}') }), 'invoice.docx');
      const posted = await api.call('POST', '/api/v1/documents', { template_id: template.id, input_json: { client: 'Ada Lovelace' }, output_format: 'pdf' });
      expect(posted.status).toBe(202);
      const id = posted.body.id as string;

      await proxy.cut; // the victim is killed with its upload half sent
      if (victim.process.exitCode === null && victim.process.signalCode === null) await once(victim.process, 'exit');
      expect((await api.call('GET', `/api/v1/documents/${id}`)).body.status).not.toBe('ready');
      const download = await api.call('GET', `/api/v1/documents/${id}/download`);
      expect(download.status).toBe(409); // nothing is served before a complete file is recorded

      await stack.start('render-worker');
      const doc = await api.waitForDocument(id, ['ready', 'failed'], 90_000);
      expect(doc).toMatchObject({ status: 'ready', files: ['pdf'] });
      const pdf = (await api.call('GET', `/api/v1/documents/${id}/download`)).raw;
      expect(pdfText(pdf)).toContain('Invoice for Ada Lovelace');
      const row = await stack.database.db.document.findUniqueOrThrow({ where: { id } });
      expect(row.renderAttempts).toBe(2); // the cut attempt, then the one that finished

      // Every object left under the document's prefix is the complete file of the generation
      // that finished: whatever the cut upload left behind went with its superseded generation.
      const storage = new S3FileStorage({ bucket: s3.bucket, endpoint: s3.endpoint, forcePathStyle: true, prefix: s3.env.S3_PREFIX, region: 'us-east-1' });
      const keys = await storage.list(documentFilesPrefix({ organizationId, id }));
      expect(keys.length).toBeGreaterThanOrEqual(1);
      for (const key of keys) {
        const bytes = await storage.get(key);
        expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
        expect(bytes.subarray(-8).toString('latin1')).toContain('%%EOF');
      }
    } finally {
      await proxy.close();
    }
  }, 150_000);
});
