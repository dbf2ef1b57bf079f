import request from 'supertest';
import { seedOrganization, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

describe('error responses', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;

  beforeAll(async () => {
    harness = await startGatewayHarness({ MAX_JSON_BODY_BYTES: '1024' });
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 1000 });
  });
  afterAll(() => harness.close());

  const expectDetailAndCode = (body: unknown) => {
    expect(Object.keys(body as object)).toEqual(['detail', 'code']);
    expect(JSON.stringify(body)).not.toMatch(/at \w+ \(|node_modules|\.ts:\d+/);
  };

  it('answers an unknown route with 404 JSON, inside and outside /api/v1', async () => {
    // A GET outside /api is the web UI's (a deep link); anything else there is a JSON 404.
    const outside = await request(harness.app).post('/no/such/page').expect(404).expect('Content-Type', /json/);
    expect(outside.body).toEqual({ detail: 'Not found', code: 'not_found' });
    const inside = await request(harness.app).get('/api/v1/no-such-thing').set('X-API-Key', org.apiKey).expect(404);
    expect(inside.body).toEqual({ detail: 'Not found', code: 'not_found' });
    expect(inside.headers['ratelimit-limit']).toBe('1000');
  });

  it('asks for the key before saying whether an API route exists', async () => {
    const res = await request(harness.app).get('/api/v1/no-such-thing').expect(401);
    expect(res.body).toEqual({ detail: 'Invalid or missing API key', code: 'invalid_api_key' });
  });

  it('answers malformed JSON with 400', async () => {
    const res = await request(harness.app)
      .post('/api/v1/documents')
      .set('X-API-Key', org.apiKey)
      .set('Content-Type', 'application/json')
      .send('{"template_id": ')
      .expect(400);
    expect(res.body).toEqual({ detail: 'Request body is not valid JSON', code: 'bad_request' });
    expectDetailAndCode(res.body);
  });

  it('answers an oversized body with 413', async () => {
    const res = await request(harness.app)
      .post('/api/v1/documents')
      .set('X-API-Key', org.apiKey)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ padding: 'x'.repeat(2048) }))
      .expect(413);
    expect(res.body).toEqual({ detail: 'Request body too large', code: 'body_too_large' });
  });

  it('answers a malformed percent-encoding in a path with 400, not 500', async () => {
    const res = await request(harness.app).get('/api/v1/templates/%E0').set('X-API-Key', org.apiKey).expect(400);
    expect(res.body).toEqual({ detail: 'The URL holds a malformed percent-encoding', code: 'bad_request' });
  });

  it('matches paths with or without a trailing slash', async () => {
    await request(harness.app).get('/api/v1/me/').set('X-API-Key', org.apiKey).expect(200);
  });

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const kept = await request(harness.app).get('/healthz').set('X-Request-Id', 'trace-abc.123').expect(200);
    expect(kept.headers['x-request-id']).toBe('trace-abc.123');
    const replaced = await request(harness.app).get('/healthz').set('X-Request-Id', 'bad id\twith spaces').expect(200);
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
