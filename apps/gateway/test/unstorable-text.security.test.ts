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

  it('refuses input_json nested past 100 levels as a 422 naming where, at once, for a 1 MiB body nested 500,000 deep too', async () => {
    const nested = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;
    const body = (depth: number) => `{"template_id":"${templateId}","output_format":"pdf","input_json":{"due":${nested(depth)}}}`;
    const post = (text: string) =>
      request(harness.app).post('/api/v1/documents').set('X-API-Key', org.apiKey).set('Content-Type', 'application/json').send(text);

    const deep = await post(body(500_000));
    expect(deep.status).toBe(422);
    expect(deep.body.errors).toEqual([
      { path: `input_json.due${'.0'.repeat(98)}`, message: 'is nested more than 100 levels deep (arrays and objects inside one another); flatten it' },
    ]);
    // 99 levels under the body's own two still fit.
    expect((await post(body(98))).status).toBe(202);
    expect(await harness.database.db.document.count()).toBe(1);
  });
});
