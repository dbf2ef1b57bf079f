import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { seedOrganization, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

describe('web UI: the gateway serves the built SPA at / beside the API', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;
  const dist = mkdtempSync(path.join(tmpdir(), 'docgen-web-dist-'));
  const indexHtml = '<!doctype html><html><head><script type="module" src="/assets/app-1.js"></script></head><body><div id="root"></div></body></html>';

  beforeAll(async () => {
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(path.join(dist, 'index.html'), indexHtml);
    writeFileSync(path.join(dist, 'assets', 'app-1.js'), 'console.log(1)');
    harness = await startGatewayHarness({ WEB_DIST_DIR: dist });
    org = await seedOrganization(harness.database.db);
  });
  afterAll(() => harness.close());

  it('serves index.html at / under a strict Content-Security-Policy', async () => {
    const res = await request(harness.app).get('/').expect(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.text).toBe(indexHtml);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    // Only style attributes may be inline (CodeMirror's tab size); never a script or <style>.
    const directives = csp.split('; ');
    expect(directives.filter((d) => d.includes('unsafe-inline'))).toEqual(["style-src-attr 'unsafe-inline'"]);
    expect(directives).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('answers a deep link with the app, so a reload of /templates/<id> works', async () => {
    const res = await request(harness.app).get('/templates/2b7c8a4e-6d0f-4a2e-9f61-2f6a3f0d9e11').expect(200);
    expect(res.text).toBe(indexHtml);
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('serves hashed assets for good, and a missing asset is a 404, not the app', async () => {
    const asset = await request(harness.app).get('/assets/app-1.js').expect(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect(asset.headers['content-type']).toContain('javascript');
    await request(harness.app).get('/assets/missing.js').expect(404);
  });

  it('keeps unknown API paths JSON 404s', async () => {
    const res = await request(harness.app).get('/api/v1/no-such-thing').set('X-API-Key', org.apiKey).expect(404);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
    for (const path of ['/api/nothing', '/api', '/API/v2/x']) {
      const outside = await request(harness.app).get(path).expect(404);
      expect(outside.headers['content-type']).toContain('application/json');
    }
  });
});
