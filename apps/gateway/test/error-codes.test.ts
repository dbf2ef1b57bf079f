import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import request from 'supertest';
import { ERROR_CODES, ErrorBody, RateLimitedBody, ValidationErrorBody } from '@docgen/contracts';
import { buildDocx, paragraph, seedOrganization, type SeededOrganization } from '@docgen/testing';
import { ERROR_TABLE } from '../src/error-table';
import { startGatewayHarness, type GatewayHarness } from './harness';
import { browser, seedPerson, type Browser } from './people-support';

describe('the error table', () => {
  it('gives every public code a status, and answers a 429 without one', () => {
    for (const code of ERROR_CODES) expect(ERROR_TABLE[code].status).toBeGreaterThanOrEqual(400);
    // The 429s (rate limit, sign-in lock, MAX_ACTIVE_PER_ORG) answer with `detail` alone: none is a public code.
    const tooMany = Object.entries(ERROR_TABLE).filter(([, entry]) => entry.status === 429);
    expect(tooMany.map(([code]) => code)).toEqual(['rate_limited', 'too_many_in_progress']);
    for (const [code] of tooMany) expect(ERROR_CODES).not.toContain(code);
  });
});

describe('errors carry their code (API.md §9)', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;
  let templateId: string;
  let server: Server;
  let url: string;
  let admin: Browser;

  beforeAll(async () => {
    harness = await startGatewayHarness({ RATE_LIMIT_WINDOW_MS: '60000' });
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 1000 });
    templateId = (
      await request(harness.app)
        .post('/api/v1/templates')
        .set('X-API-Key', org.apiKey)
        .attach('file', buildDocx({ body: paragraph('{name}') }), 't.docx')
        .expect(201)
    ).body.id;
    server = harness.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    admin = await browser(url, await seedPerson(harness.database.db, org.organizationId, 'admin'));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await harness.close();
  });

  const api = () => request(harness.app);
  /** The body is the documented error schema, with this code. */
  const expectCode = (body: unknown, code: string) => {
    expect(body).toMatchObject({ code });
    expect(ErrorBody.safeParse(body).success || ValidationErrorBody.safeParse(body).success).toBe(true);
  };

  const createDocument = async () =>
    (
      await api()
        .post('/api/v1/documents')
        .set('X-API-Key', org.apiKey)
        .send({ template_id: templateId, input_json: { name: 'Ada' }, output_format: 'pdf' })
        .expect(202)
    ).body.id as string;

  it('template_not_found, document_not_found, bulk_job_not_found, webhook_not_found', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [path, code] of [
      [`/api/v1/templates/${unknown}`, 'template_not_found'],
      [`/api/v1/documents/${unknown}`, 'document_not_found'],
      [`/api/v1/bulk-jobs/${unknown}`, 'bulk_job_not_found'],
      [`/api/v1/webhooks/${unknown}/deliveries`, 'webhook_not_found'],
    ] as const) {
      expectCode((await api().get(path).set('X-API-Key', org.apiKey).expect(404)).body, code);
    }
    const missing = await api()
      .post('/api/v1/documents')
      .set('X-API-Key', org.apiKey)
      .send({ template_id: unknown, input_json: {}, output_format: 'pdf' })
      .expect(404);
    expect(missing.body).toEqual({ detail: 'Template not found', code: 'template_not_found' });
  });

  it('not_ready (409) and purged (410) on a download', async () => {
    const id = await createDocument();
    expectCode((await api().get(`/api/v1/documents/${id}/download`).set('X-API-Key', org.apiKey).expect(409)).body, 'not_ready');
    // Retention's outcome, written as the sweep writes it: the record stays, the files are gone.
    await harness.database.db.document.update({ where: { id }, data: { status: 'ready', purgedAt: new Date('2026-01-02T00:00:00Z') } });
    const gone = await api().get(`/api/v1/documents/${id}/download`).set('X-API-Key', org.apiKey).expect(410);
    expect(gone.body).toEqual({
      detail: "This document's files were removed on 2026-01-02T00:00:00.000Z by the retention policy; generate it again",
      code: 'purged',
    });
  });

  it('idempotency_key_reused (422)', async () => {
    const send = (name: string) =>
      api()
        .post('/api/v1/documents')
        .set('X-API-Key', org.apiKey)
        .set('X-Idempotency-Key', 'codes-1')
        .send({ template_id: templateId, input_json: { name }, output_format: 'pdf' });
    await send('Ada').expect(202);
    expectCode((await send('Grace').expect(422)).body, 'idempotency_key_reused');
  });

  it('template_invalid (422), unsupported_media_type (415) on upload', async () => {
    const broken = await api().post('/api/v1/templates').set('X-API-Key', org.apiKey).attach('file', Buffer.from('not a zip'), 'broken.docx').expect(422);
    expectCode(broken.body, 'template_invalid');
    const doc = await api().post('/api/v1/templates').set('X-API-Key', org.apiKey).attach('file', Buffer.from('x'), 'old.doc').expect(415);
    expectCode(doc.body, 'unsupported_media_type');
  });

  it('spreadsheet_invalid (422) on a bulk job whose header names no token of the template', async () => {
    const res = await api()
      .post('/api/v1/bulk-jobs')
      .set('X-API-Key', org.apiKey)
      .field('template_id', templateId)
      .field('output_format', 'pdf')
      .attach('file', Buffer.from('nom\nAda\n'), 'rows.csv')
      .expect(422);
    expectCode(res.body, 'spreadsheet_invalid');
    expect(res.body.errors).toEqual([{ path: 'file', message: res.body.detail }]);
  });

  it('validation_failed (422) with the problems listed', async () => {
    const res = await api().get('/api/v1/documents?limit=abc').set('X-API-Key', org.apiKey).expect(422);
    expectCode(res.body, 'validation_failed');
  });

  it('session_required for an API key on people, csrf_failed without the token, last_admin and member_conflict', async () => {
    expectCode((await api().get('/api/v1/members').set('X-API-Key', org.apiKey).expect(403)).body, 'session_required');
    const noToken = await admin.call(url, 'POST', '/api/v1/api-keys', { body: { name: 'x' }, csrf: null });
    expect(noToken.status).toBe(403);
    expectCode(noToken.body, 'csrf_failed');
    const self = await admin.call(url, 'DELETE', `/api/v1/members/${admin.userId}`);
    expect(self).toMatchObject({ status: 409, body: { code: 'last_admin' } });
    const added = await admin.call(url, 'POST', '/api/v1/members', { body: { email: 'twice@example.test', role: 'member' } });
    expect(added.status).toBe(201);
    const again = await admin.call(url, 'POST', '/api/v1/members', { body: { email: 'twice@example.test', role: 'member' } });
    expect(again).toMatchObject({ status: 409, body: { detail: 'This email is already a member of the organisation', code: 'member_conflict' } });
    const wrong = await admin.call(url, 'POST', '/api/v1/session/password', {
      body: { current_password: 'not it at all', new_password: 'a new password 123' },
    });
    expect(wrong).toMatchObject({ status: 422, body: { code: 'wrong_password' } });
  });

  it('keeps a 429 to exactly its detail', async () => {
    const limited = await seedOrganization(harness.database.db, { rateLimitPerMinute: 1 });
    await api().get('/api/v1/me').set('X-API-Key', limited.apiKey).expect(200);
    const res = await api().get('/api/v1/me').set('X-API-Key', limited.apiKey).expect(429);
    expect(res.body).toEqual({ detail: 'Rate limit exceeded. Please try again later.' });
    expect(RateLimitedBody.safeParse(res.body).success).toBe(true);
  });
});
