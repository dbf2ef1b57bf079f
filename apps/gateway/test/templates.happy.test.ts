import PizZip from 'pizzip';
import request from 'supertest';
import { Template } from '@docgen/contracts';
import { buildDocx, paragraph, seedOrganization, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';
import { fixture } from './template-fixtures';

describe('templates: upload, read, list, correct, change variables, delete', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;

  beforeAll(async () => {
    harness = await startGatewayHarness();
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
  });
  afterAll(() => harness.close());

  const api = () => request(harness.app);
  const upload = (file: Buffer, filename: string, fields: Record<string, string> = {}) => {
    const req = api().post('/api/v1/templates/').set('X-API-Key', org.apiKey).attach('file', file, filename);
    for (const [name, value] of Object.entries(fields)) req.field(name, value);
    return req;
  };

  it('stores a DOCX and describes it', async () => {
    const res = await upload(fixture('tag-example.docx'), 'tag-example.docx').expect(201);
    expect(() => Template.parse(res.body)).not.toThrow();
    expect(res.body).toMatchObject({ name: 'tag-example', format: 'docx', is_uat: false, corrected_tokens: [] });
    expect(res.body.variables.map((v: { name: string }) => v.name).sort()).toEqual(['description', 'first_name', 'last_name', 'phone']);

    const read = await api().get(`/api/v1/templates/${res.body.id}`).set('X-API-Key', org.apiKey).expect(200);
    expect(read.body).toEqual(res.body);

    const file = await api()
      .get(`/api/v1/templates/${res.body.id}/file`)
      .set('X-API-Key', org.apiKey)
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c)).on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(file.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(file.headers['content-disposition']).toContain('filename="tag-example.docx"');
    expect((file.body as Buffer).equals(fixture('tag-example.docx'))).toBe(true);
  });

  it('rewrites token names with spaces in the stored file and reports the corrections', async () => {
    const res = await upload(buildDocx({ body: paragraph('Dear {client name}, due {due date}') }), 'letter.docx', { name: 'Welcome letter' }).expect(201);
    expect(res.body.name).toBe('Welcome letter');
    expect(res.body.corrected_tokens).toEqual([
      { from: 'client name', to: 'client_name' },
      { from: 'due date', to: 'due_date' },
    ]);
    const file = await api().get(`/api/v1/templates/${res.body.id}/file`).set('X-API-Key', org.apiKey).responseType('blob').expect(200);
    const text = new PizZip(file.body as Buffer)
      .file('word/document.xml')!
      .asText()
      .replace(/<[^>]+>/g, '');
    expect(text).toBe('Dear {client_name}, due {due_date}');
  });

  it('keeps variable changes (text ↔ date with format, required) across reads', async () => {
    const created = await upload(buildDocx({ body: paragraph('{client}{due}{#items}{x}{/items}') }), 'invoice.docx').expect(201);
    const id = created.body.id as string;
    const patched = await api()
      .patch(`/api/v1/templates/${id}/variables`)
      .set('X-API-Key', org.apiKey)
      .send({ variables: [{ name: 'due', type: 'date', format: 'DD/MM/YYYY', required: false }] })
      .expect(200);
    const expected = [
      { name: 'client', type: 'text', required: true },
      { name: 'due', type: 'date', required: false, format: 'DD/MM/YYYY' },
      { name: 'items', type: 'list', required: true, fields: ['x'], field_types: { x: 'text' } },
    ];
    expect(patched.body.variables).toEqual(expected);
    expect(new Date(patched.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(created.body.updated_at).getTime());
    const read = await api().get(`/api/v1/templates/${id}`).set('X-API-Key', org.apiKey).expect(200);
    expect(read.body.variables).toEqual(expected);

    const dateDefault = await api()
      .patch(`/api/v1/templates/${id}/variables`)
      .set('X-API-Key', org.apiKey)
      .send({
        variables: [
          { name: 'client', type: 'date' },
          { name: 'due', type: 'text' },
        ],
      })
      .expect(200);
    expect(dateDefault.body.variables.slice(0, 2)).toEqual([
      { name: 'client', type: 'date', required: true, format: 'YYYY-MM-DD' },
      { name: 'due', type: 'text', required: false },
    ]);
  });

  it('types numbers, booleans and list fields, keeps the locale, and serves the input schema', async () => {
    const created = await upload(buildDocx({ body: paragraph('{total}{#paid}x{/paid}{#rows}{price}{#flag}!{/flag}{/rows}') }), 'typed.docx', {
      locale: 'fr-fr',
    }).expect(201);
    const id = created.body.id as string;
    expect(created.body.locale).toBe('fr-FR');
    expect(created.body.variables).toEqual([
      { name: 'total', type: 'text', required: true },
      { name: 'paid', type: 'boolean', required: true },
      { name: 'rows', type: 'list', required: true, fields: ['price', 'flag'], field_types: { price: 'text', flag: 'boolean' } },
    ]);
    const euros = { style: 'currency', currency: 'EUR', minimum_fraction_digits: 2 };
    const patched = await api()
      .patch(`/api/v1/templates/${id}/variables`)
      .set('X-API-Key', org.apiKey)
      .send({
        variables: [
          { name: 'total', type: 'number', format: euros },
          { name: 'paid', type: 'list' },
          { name: 'rows.price', type: 'number', format: euros },
        ],
      })
      .expect(200);
    expect(patched.body.variables).toEqual([
      { name: 'total', type: 'number', required: true, format: euros },
      { name: 'paid', type: 'list', required: true },
      {
        name: 'rows',
        type: 'list',
        required: true,
        fields: ['price', 'flag'],
        field_types: { price: 'number', flag: 'boolean' },
        field_formats: { price: euros },
      },
    ]);
    const relocated = await api().patch(`/api/v1/templates/${id}`).set('X-API-Key', org.apiKey).send({ locale: 'ja-jp' }).expect(200);
    expect(relocated.body).toMatchObject({ locale: 'ja-JP', variables: patched.body.variables });
    const renamed = await api().patch(`/api/v1/templates/${id}`).set('X-API-Key', org.apiKey).send({ name: '  Invoice (2027)  ' }).expect(200);
    expect(renamed.body).toMatchObject({ id, name: 'Invoice (2027)', locale: 'ja-JP' });
    const schema = await api().get(`/api/v1/templates/${id}/schema`).set('X-API-Key', org.apiKey).expect(200);
    expect(schema.body).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      required: ['total', 'paid', 'rows'],
      properties: { paid: { type: 'array' }, rows: { items: { properties: { flag: { type: 'boolean' } }, required: ['price', 'flag'] } } },
    });
  });

  it('lists newest first with cursor pagination, per environment', async () => {
    const other = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
    const names = ['one', 'two', 'three'];
    for (const name of names) {
      await api()
        .post('/api/v1/templates')
        .set('X-API-Key', other.apiKey)
        .attach('file', buildDocx({ body: paragraph('{x}') }), `${name}.docx`)
        .expect(201);
    }
    await api()
      .post('/api/v1/templates?is_uat=true')
      .set('X-API-Key', other.apiKey)
      .attach('file', buildDocx({ body: paragraph('{x}') }), 'uat.docx')
      .expect(201);

    const first = await api().get('/api/v1/templates?limit=2').set('X-API-Key', other.apiKey).expect(200);
    expect(first.body.items.map((t: { name: string }) => t.name)).toEqual(['three', 'two']);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await api().get(`/api/v1/templates?limit=2&cursor=${first.body.next_cursor}`).set('X-API-Key', other.apiKey).expect(200);
    expect(second.body).toEqual({ items: [expect.objectContaining({ name: 'one' })], next_cursor: null });

    const uat = await api().get('/api/v1/templates/?is_uat=true').set('X-API-Key', other.apiKey).expect(200);
    expect(uat.body.items.map((t: { name: string; is_uat: boolean }) => [t.name, t.is_uat])).toEqual([['uat', true]]);
  });

  it('names a template after its file name without the control characters in it', async () => {
    // Busboy refuses a raw NUL in a header, but decodes one from the RFC 2231 form.
    const boundary = 'docgen-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''Inv%00oice%07%202026.docx\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const multipart = Buffer.concat([Buffer.from(head), buildDocx({ body: paragraph('{x}') }), Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const res = await api()
      .post('/api/v1/templates/')
      .set('X-API-Key', org.apiKey)
      .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
      .send(multipart)
      .expect(201);
    expect(res.body.name).toBe('Invoice 2026');
  });

  it('takes is_uat as a form field too', async () => {
    const res = await upload(buildDocx({ body: paragraph('{x}') }), 'form-uat.docx', { is_uat: 'true' }).expect(201);
    expect(res.body.is_uat).toBe(true);
    await api().get(`/api/v1/templates/${res.body.id}?is_uat=true`).set('X-API-Key', org.apiKey).expect(200);
  });

  it('deletes a template: 204, then 404 and gone from the list', async () => {
    const res = await upload(buildDocx({ body: paragraph('{x}') }), 'doomed.docx').expect(201);
    await api().delete(`/api/v1/templates/${res.body.id}`).set('X-API-Key', org.apiKey).expect(204);
    const gone = await api().get(`/api/v1/templates/${res.body.id}`).set('X-API-Key', org.apiKey).expect(404);
    expect(gone.body).toEqual({ detail: 'Template not found', code: 'template_not_found' });
    await api().delete(`/api/v1/templates/${res.body.id}`).set('X-API-Key', org.apiKey).expect(404);
    const list = await api().get('/api/v1/templates?limit=100').set('X-API-Key', org.apiKey).expect(200);
    expect(list.body.items.map((t: { id: string }) => t.id)).not.toContain(res.body.id);
  });
});
