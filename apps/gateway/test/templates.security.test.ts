import request from 'supertest';
import { buildDocx, paragraph, seedOrganization, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

const NOT_FOUND = { detail: 'Template not found', code: 'template_not_found' };

describe('templates: organisation and environment isolation', () => {
  let harness: GatewayHarness;
  let owner: SeededOrganization;
  let stranger: SeededOrganization;
  let productionId: string;
  let uatId: string;

  beforeAll(async () => {
    harness = await startGatewayHarness();
    owner = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
    stranger = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
    const file = buildDocx({ body: paragraph('{secret}') });
    productionId = (await request(harness.app).post('/api/v1/templates').set('X-API-Key', owner.apiKey).attach('file', file, 'p.docx').expect(201)).body.id;
    uatId = (await request(harness.app).post('/api/v1/templates?is_uat=true').set('X-API-Key', owner.apiKey).attach('file', file, 'u.docx').expect(201)).body
      .id;
  });
  afterAll(() => harness.close());

  const attempts = (id: string, query = '') => [
    () => request(harness.app).get(`/api/v1/templates/${id}${query}`),
    () => request(harness.app).get(`/api/v1/templates/${id}/file${query}`),
    () =>
      request(harness.app)
        .patch(`/api/v1/templates/${id}/variables${query}`)
        .send({ variables: [{ name: 'secret', required: false }] }),
    () => request(harness.app).delete(`/api/v1/templates/${id}${query}`),
  ];

  it("answers 404 to every operation on another organisation's template, and does not list it", async () => {
    for (const attempt of [...attempts(productionId), ...attempts(uatId, '?is_uat=true')]) {
      const res = await attempt().set('X-API-Key', stranger.apiKey).expect(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
    const list = await request(harness.app).get('/api/v1/templates').set('X-API-Key', stranger.apiKey).expect(200);
    expect(list.body.items).toEqual([]);
  });

  it('answers 404 when a template is addressed in the other environment', async () => {
    for (const attempt of [...attempts(productionId, '?is_uat=true'), ...attempts(uatId), ...attempts(uatId, '?is_uat=false')]) {
      const res = await attempt().set('X-API-Key', owner.apiKey).expect(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
  });

  it('answers 404, not 422 or 500, to an id that is not a UUID', async () => {
    const res = await request(harness.app).get("/api/v1/templates/1'%20OR%201=1").set('X-API-Key', owner.apiKey).expect(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  it('still serves the owner after all those attempts', async () => {
    await request(harness.app).get(`/api/v1/templates/${productionId}`).set('X-API-Key', owner.apiKey).expect(200);
    await request(harness.app).get(`/api/v1/templates/${uatId}?is_uat=true`).set('X-API-Key', owner.apiKey).expect(200);
  });
});
