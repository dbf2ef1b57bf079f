import request from 'supertest';
import { MeResponse, buildOpenApiDocument } from '@docgen/contracts';
import { buildDocx, paragraph, seedOrganization, startService } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

describe('metrics, documentation and lifecycle', () => {
  let harness: GatewayHarness;

  beforeAll(async () => {
    harness = await startGatewayHarness();
  });
  afterAll(() => harness.close());

  it('exports requests by route and status, latency and rate-limited counts', async () => {
    const org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 1 });
    await request(harness.app).get('/api/v1/me').set('X-API-Key', org.apiKey).expect(200);
    await request(harness.app).get('/api/v1/me').set('X-API-Key', org.apiKey).expect(429);
    const res = await request(harness.app).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/api\/v1\/me",status="200"[^}]*\} 1/);
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/api\/v1\/me",status="429"[^}]*\} 1/);
    expect(res.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/api\/v1\/me"[^}]*\} 2/);
    // The open /metrics names no tenant: the 429 is counted, its organisation is not.
    expect(res.text).toMatch(/rate_limited_requests_total\{service="gateway-test"\} 1/);
    expect(res.text).not.toContain(org.organizationId);
  });

  it('labels rate-limited counts by organisation only when METRICS_ORGANIZATION_LABELS is on', async () => {
    const labelled = await startGatewayHarness({ METRICS_ORGANIZATION_LABELS: 'true' });
    try {
      const org = await seedOrganization(labelled.database.db, { rateLimitPerMinute: 1 });
      await request(labelled.app).get('/api/v1/me').set('X-API-Key', org.apiKey).expect(200);
      await request(labelled.app).get('/api/v1/me').set('X-API-Key', org.apiKey).expect(429);
      const res = await request(labelled.app).get('/metrics').expect(200);
      expect(res.text).toMatch(new RegExp(`rate_limited_requests_total\\{organization="${org.organizationId}"[^}]*\\} 1`));
    } finally {
      await labelled.close();
    }
  });

  it('serves the OpenAPI document generated from the contracts, and /docs renders it', async () => {
    const res = await request(harness.app).get('/api/v1/openapi.json').expect(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    const docs = await request(harness.app).get('/docs/').expect(200);
    expect(docs.text).toContain('swagger-ui');
  });

  it('sends responses that validate against the contract', async () => {
    const org = await seedOrganization(harness.database.db);
    const res = await request(harness.app).get('/api/v1/me').set('X-API-Key', org.apiKey).expect(200);
    expect(() => MeResponse.parse(res.body)).not.toThrow();
  });

  it('writes the request id into every log line of a request and exits 0 on SIGTERM', async () => {
    const gateway = await startService('gateway', harness.env);
    await fetch(`${gateway.url}/healthz`, { headers: { 'X-Request-Id': 'log-check-1' } });
    // A request whose route logs a line of its own: that line carries the id too.
    const org = await seedOrganization(harness.database.db);
    const form = new FormData();
    form.append('file', new Blob([buildDocx({ body: paragraph('{x}') })]), 'log.docx');
    const uploaded = await fetch(`${gateway.url}/api/v1/templates`, {
      method: 'POST',
      headers: { 'X-Request-Id': 'log-check-2', 'X-API-Key': org.apiKey },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const template = (await uploaded.json()) as { id: string };
    // A document's request says what it did on its one line (a line per request on the hot path).
    const created = await fetch(`${gateway.url}/api/v1/documents`, {
      method: 'POST',
      headers: { 'X-Request-Id': 'log-check-3', 'X-API-Key': org.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ template_id: template.id, input_json: { x: '1' }, output_format: 'docx' }),
    });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    const exitCode = await gateway.stop('SIGTERM');
    expect(exitCode).toBe(0);
    expect(gateway.logs.filter((line) => line.request_id === 'log-check-1').length).toBeGreaterThan(0);
    expect(gateway.logs.filter((line) => line.request_id === 'log-check-2').map((line) => line.msg)).toEqual(['template stored', 'request completed']);
    expect(gateway.logs.filter((line) => line.request_id === 'log-check-3')).toEqual([
      expect.objectContaining({
        msg: 'document queued',
        documentId: id,
        generation: 1,
        req: { id: 'log-check-3', method: 'POST', url: '/api/v1/documents' },
        res: { statusCode: 202 },
        responseTime: expect.any(Number),
      }),
    ]);
    expect(gateway.logs.some((line) => line.msg === 'shutdown complete')).toBe(true);
  });

  it('names a bad DATABASE_URL without echoing its password', async () => {
    const attempt = startService('gateway', { ...harness.env, DATABASE_URL: 'mysql://admin:hunter2-secret@db.internal/docgen' });
    await expect(attempt).rejects.toThrow(
      /gateway: Invalid configuration: DATABASE_URL: must be a URL starting with postgresql:\/\/ or postgres:\/\/ \(value not shown\)\n$/,
    );
    await expect(attempt).rejects.not.toThrow(/hunter2/);
  });

  it('refuses to start with a bad variable, naming it on one line', async () => {
    await expect(startService('gateway', { ...harness.env, PORT: 'eighty' })).rejects.toThrow(
      /gateway exited with 1 before listening: gateway: Invalid configuration: PORT: must be an integer \(got "eighty"\)\n$/,
    );
  });
});
