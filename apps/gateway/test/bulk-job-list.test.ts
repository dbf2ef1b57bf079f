import request from 'supertest';
import { buildDocx, paragraph, seedOrganization, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

/** GET /api/v1/bulk-jobs: the web UI's /bulk-jobs page reads it; scoped like every list. */
describe('GET /api/v1/bulk-jobs lists the organisation’s bulk jobs of one environment, newest first', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;
  let other: SeededOrganization;
  const ids: string[] = [];
  let uatId: string;
  let foreignId: string;
  let firstTemplate: string;

  const template = async (key: string, isUat = false) =>
    (
      await request(harness.app)
        .post('/api/v1/templates')
        .set('X-API-Key', key)
        .field('is_uat', String(isUat))
        .attach('file', buildDocx({ body: paragraph('Dear {name}') }), 't.docx')
        .expect(201)
    ).body.id as string;

  const bulk = async (key: string, templateId: string, isUat = false) =>
    (
      await request(harness.app)
        .post('/api/v1/bulk-jobs')
        .set('X-API-Key', key)
        .field('template_id', templateId)
        .field('output_format', 'pdf')
        .field('is_uat', String(isUat))
        .attach('file', Buffer.from('name\r\nAda\r\n'), 'rows.csv')
        .expect(202)
    ).body.id as string;

  beforeAll(async () => {
    harness = await startGatewayHarness();
    org = await seedOrganization(harness.database.db);
    other = await seedOrganization(harness.database.db);
    firstTemplate = await template(org.apiKey);
    const secondTemplate = await template(org.apiKey);
    ids.push(await bulk(org.apiKey, firstTemplate), await bulk(org.apiKey, secondTemplate), await bulk(org.apiKey, firstTemplate));
    uatId = await bulk(org.apiKey, await template(org.apiKey, true), true);
    foreignId = await bulk(other.apiKey, await template(other.apiKey));
  }, 120_000);
  afterAll(() => harness?.close());

  const list = (query: string, key = org.apiKey) => request(harness.app).get(`/api/v1/bulk-jobs${query}`).set('X-API-Key', key);

  it('pages newest first with an opaque cursor, never showing another organisation’s or environment’s jobs', async () => {
    const first = await list('?limit=2').expect(200);
    expect(first.body.items.map((job: { id: string }) => job.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.items[0]).toMatchObject({ template_id: firstTemplate, status: 'queued', total_rows: 1, succeeded: 0, failed: 0, is_uat: false });
    const second = await list(`/?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`).expect(200);
    expect(second.body).toEqual({ items: [expect.objectContaining({ id: ids[0] })], next_cursor: null });

    const uat = await list('?is_uat=true').expect(200);
    expect(uat.body.items.map((job: { id: string }) => job.id)).toEqual([uatId]);
    const foreign = await list('', other.apiKey).expect(200);
    expect(foreign.body.items.map((job: { id: string }) => job.id)).toEqual([foreignId]);
  });

  it('filters by template and status', async () => {
    const byTemplate = await list(`?template_id=${firstTemplate}`).expect(200);
    expect(byTemplate.body.items.map((job: { id: string }) => job.id)).toEqual([ids[2], ids[0]]);
    expect((await list('?status=completed').expect(200)).body.items).toEqual([]);
  });

  it('refuses a bad filter or cursor with 422 and the field named', async () => {
    const badStatus = await list('?status=done').expect(422);
    expect(badStatus.body.errors).toEqual([expect.objectContaining({ path: 'status' })]);
    const badCursor = await list('?cursor=nonsense').expect(422);
    expect(badCursor.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'cursor', message: expect.any(String) }] });
    expect((await list('?limit=0').expect(422)).body.errors[0].path).toBe('limit');
  });

  it('needs a credential', async () => {
    expect((await request(harness.app).get('/api/v1/bulk-jobs').expect(401)).body.detail).toBe('Invalid or missing API key');
  });
});
