import { buildDocx, paragraph, seedOrganization, startService, type RunningService } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

/** About 4.5 MiB of document.xml (under MAX_TEMPLATE_PART_BYTES) that takes seconds of CPU and much memory to check. */
const heavyTemplate = () => buildDocx({ body: Array.from({ length: 45_000 }, (_, i) => paragraph(`Line ${i} {name}`)).join('') });

/**
 * Issue 28 item 2: what an upload costs to check is the uploader's to choose, so it runs in a
 * worker thread: one gateway process keeps answering everyone else meanwhile.
 */
describe('an expensive upload does not stall the gateway (a real gateway process)', () => {
  let harness: GatewayHarness;
  let gateway: RunningService;
  let apiKey: string;

  beforeAll(async () => {
    harness = await startGatewayHarness();
    apiKey = (await seedOrganization(harness.database.db, { rateLimitPerMinute: 100_000 })).apiKey;
    gateway = await startService('gateway', { ...harness.env, UPLOAD_CHECK_TIMEOUT_MS: '60000' });
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    await harness?.close();
  });

  it('answers other requests promptly while a template that takes seconds to check is being checked', async () => {
    const form = new FormData();
    form.append('file', new Blob([heavyTemplate()]), 'heavy.docx');
    const started = Date.now();
    let uploadDone = false;
    const upload = fetch(`${gateway.url}/api/v1/templates`, { method: 'POST', headers: { 'X-API-Key': apiKey }, body: form }).then(async (res) => {
      uploadDone = true;
      return { status: res.status, ms: Date.now() - started };
    });

    const latencies: number[] = [];
    while (!uploadDone) {
      const sent = Date.now();
      const res = await fetch(`${gateway.url}/api/v1/me`, { headers: { 'X-API-Key': apiKey } });
      expect(res.status).toBe(200);
      latencies.push(Date.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { status, ms } = await upload;
    expect(status).toBe(201);
    // On the event loop the check blocked every request for its whole duration (seconds).
    expect(ms).toBeGreaterThan(1_000);
    expect(latencies.length).toBeGreaterThan(5);
    process.stdout.write(`upload checked in ${ms} ms; ${latencies.length} requests meanwhile, slowest ${Math.max(...latencies)} ms\n`);
    expect(Math.max(...latencies)).toBeLessThan(ms / 2);
  }, 120_000);
});
