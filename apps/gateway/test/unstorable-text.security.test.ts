import request from 'supertest';
import { buildDocx, paragraph, seedOrganization, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

const UNSTORABLE = 'holds a NUL character or half of a surrogate pair, which cannot be stored; remove it';

/** A NUL or a lone surrogate in any body is a 422 naming where it is, never a 500 when the row is written (found by the fuzz tests). */
describe('text PostgreSQL cannot store, in any body', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;
  let templateId: string;

  beforeAll(async () => {
    harness = await startGatewayHarness();
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
    const res = await request(harness.app)
      .post('/api/v1/templates')
      .set('X-API-Key', org.apiKey)
      .attach('file', buildDocx({ body: paragraph('{due}') }), 't.docx');
    templateId = res.body.id;
  }, 60_000);
  afterAll(() => harness?.close());

  it('refuses it in a multipart field (the template name) and in a JSON body (a variable format), naming the field', async () => {
    const upload = await request(harness.app)
      .post('/api/v1/templates')
      .set('X-API-Key', org.apiKey)
      .field('name', 'a\u0000b')
      .attach('file', buildDocx({ body: paragraph('{x}') }), 't.docx');
    expect(upload.status).toBe(422);
    expect(upload.body.errors).toEqual([{ path: 'name', message: UNSTORABLE }]);

    for (const format of ['DD/MM\u0000', 'DD[\uD800]']) {
      const patch = await request(harness.app)
        .patch(`/api/v1/templates/${templateId}/variables`)
        .set('X-API-Key', org.apiKey)
        .send({ variables: [{ name: 'due', type: 'date', format }] });
      expect(patch.status).toBe(422);
      expect(patch.body.errors).toEqual([{ path: 'variables.0.format', message: UNSTORABLE }]);
    }
    expect(await harness.database.db.template.count()).toBe(1);
  });
});
