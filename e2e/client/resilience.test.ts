import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { apiClient, repoRoot, startStack, pdfText, type RunningService, type Stack } from '@docgen/testing';
import { createClient, type RetryInfo } from '@docgen/client';
import { freePort, startFaultProxy } from './fault-proxy';
import { uploadInvoiceTemplate } from './support';

const WINDOW_MS = 2000;

describe('retries against the real service: rate limit, a killed gateway, a lost response', () => {
  let stack: Stack;
  let port: number;
  let gateway: RunningService;
  const gatewayEnv = () => ({ PORT: String(port), RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) });
  const documentsOf = (organizationId: string) => stack.database.db.document.findMany({ where: { organizationId }, select: { id: true } });

  beforeAll(async () => {
    stack = await startStack({ gateways: 0 });
    port = await freePort();
    gateway = await stack.start('gateway', gatewayEnv());
  }, 120_000);
  afterAll(() => stack.close());

  it('a 429 storm on an organisation with a tiny limit: every call succeeds within its retries, one document each', async () => {
    const org = await stack.organization();
    const templateId = await uploadInvoiceTemplate(apiClient(gateway.url, org.apiKey));
    // As an operator sets it (the CLI tells every gateway's key lookups): from now on 4 per window.
    const cli = path.join(repoRoot, 'apps', 'cli', 'dist', 'main.js');
    await promisify(execFile)(process.execPath, [cli, 'orgs', 'set-rate-limit', '--org', org.organizationId, '--per-minute', '4'], {
      env: { ...process.env, ...stack.env },
    });
    const retries: RetryInfo[] = [];
    const client = createClient({ baseUrl: gateway.url, apiKey: org.apiKey, retry: { onRetry: (info) => retries.push(info) } });

    const calls = Array.from({ length: 10 }, (_, i) =>
      client.generate({ template_id: templateId, input_json: { client_name: `n${i}` }, output_format: 'pdf' }),
    );
    const documents = await Promise.all(calls);

    expect(new Set(documents.map((d) => d.id)).size).toBe(10);
    expect(retries.length).toBeGreaterThanOrEqual(6);
    expect(retries.every((r) => r.status === 429 && r.attempt <= 3 && r.delayMs >= 1000)).toBe(true);
    expect((await documentsOf(org.organizationId)).map((d) => d.id).sort()).toEqual(documents.map((d) => d.id).sort());
  });

  // The kill tests allow 5 retries (31 s) instead of 3 (7 s): a restart on a busy machine can take longer than 7 s.
  it('the gateway is killed after carrying out the POST and before its answer arrives, then restarted: the retry returns the same document', async () => {
    const org = await stack.organization();
    const templateId = await uploadInvoiceTemplate(apiClient(gateway.url, org.apiKey));
    const proxy = await startFaultProxy({ port });
    const retries: RetryInfo[] = [];
    const client = createClient({ baseUrl: proxy.url, apiKey: org.apiKey, retry: { maxRetries: 5, onRetry: (info) => retries.push(info) } });
    let restarted: Promise<RunningService> | undefined;
    proxy.loseNextResponseTo('POST /api/v1/documents', () => {
      restarted = gateway.stop('SIGKILL').then(() => stack.start('gateway', gatewayEnv()));
    });
    try {
      const { document, download } = await client.generateAndWait({
        template_id: templateId,
        input_json: { client_name: 'Killed Mid-Call' },
        output_format: 'pdf',
      });
      gateway = await restarted!;
      expect(document.status).toBe('ready');
      expect(pdfText(await download())).toContain('Invoice for Killed Mid-Call');
      expect(retries[0]).toMatchObject({ method: 'POST', attempt: 1 });
      expect(retries[0]!.status).toBeUndefined();
      expect((await documentsOf(org.organizationId)).map((d) => d.id)).toEqual([document.id]);
    } finally {
      await proxy.close();
    }
  });

  it('the gateway is killed while the client polls and comes back: the wait carries on to the ready document', async () => {
    const org = await stack.organization();
    const templateId = await uploadInvoiceTemplate(apiClient(gateway.url, org.apiKey));
    const retries: RetryInfo[] = [];
    const client = createClient({ baseUrl: gateway.url, apiKey: org.apiKey, retry: { maxRetries: 5, onRetry: (info) => retries.push(info) } });
    let restarted: Promise<RunningService> | undefined;
    const { document } = await client.generateAndWait(
      { template_id: templateId, input_json: { client_name: 'Polled' }, output_format: 'pdf' },
      { onStatus: (doc) => void (doc.status === 'queued' && (restarted = gateway.stop('SIGKILL').then(() => stack.start('gateway', gatewayEnv())))) },
    );
    gateway = await restarted!;
    expect(document.status).toBe('ready');
    expect(retries.some((r) => r.method === 'GET' && r.status === undefined)).toBe(true);
    expect(await documentsOf(org.organizationId)).toHaveLength(1);
  });
});
