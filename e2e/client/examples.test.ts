import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { signWebhook } from '@docgen/security';
import { apiClient, makeTestCertificates, repoRoot, startStack, pdfText, type Stack, type TestCertificates } from '@docgen/testing';
import { createClient } from '@docgen/client';
import { freePort } from './fault-proxy';
import { eventually } from './support';

const examples = path.join(repoRoot, 'examples');

describe('examples/ run against the real service', () => {
  let stack: Stack;
  let env: Record<string, string>;
  let certificates: TestCertificates;
  const dir = mkdtempSync(path.join(tmpdir(), 'docgen-examples-'));

  const run = (command: string, args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(command, args, { env: { PATH: process.env.PATH!, ...env }, cwd: dir }, (error, stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
      ),
    );

  beforeAll(async () => {
    certificates = makeTestCertificates();
    stack = await startStack({ env: { OUTBOUND_ALLOW_PRIVATE: 'true', NODE_EXTRA_CA_CERTS: certificates.caPath } });
    await stack.start('webhook-dispatcher');
    const org = await stack.organization();
    env = { DOCGEN_URL: stack.gateways[0]!.url, DOCGEN_API_KEY: org.apiKey };
  }, 120_000);
  afterAll(() => stack.close());

  it('curl-walkthrough.sh uploads the sample template, generates and downloads the PDF', async () => {
    const result = await run('bash', [path.join(examples, 'curl-walkthrough.sh'), 'walkthrough.pdf']);
    expect(result.stderr).toContain('4. Download it');
    expect(result.code).toBe(0);
    const text = pdfText(readFileSync(path.join(dir, 'walkthrough.pdf')));
    expect(text).toContain('Invoice INV-2026-001');
    expect(text).toContain('Analytical engine tuning');
  });

  it("the README's curl block runs as written (bash and curl only) and its document ends ready", async () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const block = /With curl \(the whole round trip[^\n]*\n\n```bash\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    expect(block).not.toMatch(/uuidgen|\bjq\b/);
    const api = apiClient(env.DOCGEN_URL!, env.DOCGEN_API_KEY!);
    const template = await api.postFile('/api/v1/templates', readFileSync(path.join(examples, 'sample-invoice.html')), 'sample-invoice.html');
    // Only the placeholders change: the template id `npm start` prints and this stack's address.
    const script = block!.replaceAll('<id>', template.body.id).replaceAll('http://127.0.0.1:8080', env.DOCGEN_URL!);
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile('bash', ['-eo', 'pipefail', '-c', script], { env: { PATH: '/usr/bin:/bin', ...env }, cwd: repoRoot }, (error, stdout, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
      ),
    );
    expect(result.code).toBe(0);
    const queued = JSON.parse(result.stdout) as { id: string; status: string };
    expect(queued.status).toBe('queued');
    const done = await eventually(
      async () => {
        const document = (await api.call('GET', `/api/v1/documents/${queued.id}`)).body;
        return document.status === 'ready' || document.status === 'failed' ? document : undefined;
      },
      'the README document to finish',
      60_000,
    );
    expect({ status: done.status, error: done.error_message }).toEqual({ status: 'ready', error: undefined });
  });

  it('generate-pdf.mjs generates and saves a PDF', async () => {
    const api = apiClient(env.DOCGEN_URL!, env.DOCGEN_API_KEY!);
    const template = await api.postFile('/api/v1/templates', readFileSync(path.join(examples, 'sample-invoice.html')), 'sample-invoice.html');
    const result = await run(process.execPath, [path.join(examples, 'generate-pdf.mjs'), template.body.id, 'node.pdf']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^saved node\.pdf \(document [0-9a-f-]{36}\)$/m);
    expect(result.code).toBe(0);
    expect(pdfText(readFileSync(path.join(dir, 'node.pdf')))).toContain('Bill to: Ada Lovelace');
  });

  describe('webhook-receiver.mjs (Express, HTTPS with the test CA)', () => {
    let receiver: ChildProcess;
    const lines: Record<string, string>[] = [];
    let url: string;
    let secret: string;

    const post = (body: string, headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          url,
          { method: 'POST', ca: readFileSync(certificates.caPath), headers: { 'content-type': 'application/json', ...headers } },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.on('error', reject);
        req.end(body);
      });

    beforeAll(async () => {
      const api = apiClient(env.DOCGEN_URL!, env.DOCGEN_API_KEY!);
      // The endpoint's secret exists only once it is registered, and the receiver needs it to start:
      // register first, then start the receiver on the registered port.
      const port = await freePort();
      url = `https://127.0.0.1:${port}/webhooks/docgen`;
      const endpoint = await api.call('POST', '/api/v1/webhooks', { url });
      expect(endpoint.status).toBe(201);
      secret = endpoint.body.secret as string;
      writeFileSync(path.join(dir, 'key.pem'), certificates.key);
      writeFileSync(path.join(dir, 'cert.pem'), certificates.cert);
      receiver = spawn(process.execPath, [path.join(examples, 'webhook-receiver.mjs')], {
        env: {
          PATH: process.env.PATH!,
          PORT: String(port),
          HOST: '127.0.0.1',
          DOCGEN_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')},${secret}`,
          TLS_CERT_FILE: path.join(dir, 'cert.pem'),
          TLS_KEY_FILE: path.join(dir, 'key.pem'),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      createInterface({ input: receiver.stdout! }).on('line', (line) => lines.push(JSON.parse(line)));
      await eventually(async () => lines.some((l) => l.listening), 'the receiver listening');
    }, 60_000);
    afterAll(() => receiver?.kill());

    it('verifies the real delivery, handles it once, and refuses tampered or unsigned requests', async () => {
      const client = createClient({ baseUrl: env.DOCGEN_URL!, apiKey: env.DOCGEN_API_KEY! });
      const template = await apiClient(env.DOCGEN_URL!, env.DOCGEN_API_KEY!).postFile(
        '/api/v1/templates',
        readFileSync(path.join(examples, 'sample-invoice.html')),
        'hooked.html',
      );
      const input = JSON.parse(readFileSync(path.join(examples, 'invoice-data.json'), 'utf8'));
      const { document } = await client.generateAndWait({ template_id: template.body.id, input_json: input, output_format: 'pdf' });
      await eventually(async () => lines.some((l) => l.handled === 'document.ready' && l.job_id === document.id), 'the receiver handling document.ready');
      const delivered = lines.find((l) => l.handled === 'document.ready' && l.job_id === document.id)!;

      // The same event again, as a retry of its delivery or its delivery to a second endpoint arrives (the same body,
      // another webhook-id): answered, not handled twice.
      const body = JSON.stringify({ job_id: document.id, event: 'document.ready', occurred_at: delivered.occurred_at, data: document });
      const timestamp = Math.floor(Date.now() / 1000);
      const signed = (id: string, payload: string) => ({
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(secret, id, timestamp, payload),
      });
      expect(await post(body, signed(`msg_${randomUUID()}`, body))).toBe(204);
      await eventually(async () => lines.some((l) => l.duplicate === 'document.ready' && l.job_id === document.id), 'the duplicate noticed');
      expect(lines.filter((l) => l.handled && l.job_id === document.id)).toHaveLength(1);
      // Another event of the same type and document (a second failure after a retry under its key would be one): handled.
      const later = new Date(Date.parse(delivered.occurred_at!) + 60_000).toISOString();
      const another = body.replace(delivered.occurred_at!, later);
      expect(await post(another, signed(`msg_${randomUUID()}`, another))).toBe(204);
      await eventually(async () => lines.some((l) => l.handled && l.occurred_at === later), 'the other event handled');

      expect(await post(body.replace('"ready"', '"failed"'), signed('msg_tampered', body))).toBe(400);
      expect(await post(body, {})).toBe(400);
      // The receiver's log lines arrive over its stdout, after its answers: wait for both.
      await eventually(async () => lines.filter((l) => l.rejected).length >= 2, 'both rejections logged');
      expect(lines.filter((l) => l.rejected).map((l) => l.rejected)).toEqual(['No webhook signature matches the secret', 'Missing webhook-id header']);
    });
  });
});
