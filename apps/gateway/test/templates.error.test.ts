import PizZip from 'pizzip';
import request from 'supertest';
import { ValidationErrorBody } from '@docgen/contracts';
import { buildDocx, paragraph, seedOrganization, table, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';
import { filesUnder, fixture } from './template-fixtures';

const MAX_UPLOAD = 256 * 1024;

describe('templates: bad input gets a clear error and stores nothing', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;

  beforeAll(async () => {
    harness = await startGatewayHarness({ MAX_UPLOAD_BYTES: String(MAX_UPLOAD), MAX_TEMPLATE_EXPANDED_BYTES: String(2 * 1024 * 1024) });
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
  });
  afterAll(() => harness.close());

  const upload = (file: Buffer, filename: string) => request(harness.app).post('/api/v1/templates').set('X-API-Key', org.apiKey).attach('file', file, filename);

  afterEach(async () => {
    expect(await harness.database.db.template.count()).toBe(0);
    expect(await filesUnder(harness.storageDir)).toEqual([]);
  });

  it('rejects one-unclosed.docx with one error naming the tag and the part', async () => {
    const res = await upload(fixture('one-unclosed.docx'), 'one-unclosed.docx').expect(422);
    expect(() => ValidationErrorBody.parse(res.body)).not.toThrow();
    expect(res.body.detail).toBe('The template has 1 error; fix it and upload again');
    expect(res.body.errors).toEqual([{ path: 'file', tag: '{lastNameRest', part: 'body', message: expect.stringContaining('is not closed') }]);
  });

  it('rejects multiple-unclosed.docx with three errors', async () => {
    const res = await upload(fixture('multiple-unclosed.docx'), 'multiple-unclosed.docx').expect(422);
    expect(res.body.detail).toBe('The template has 3 errors; fix them and upload again');
    expect(res.body.errors).toHaveLength(3);
  });

  it('rejects a loop leaving its table, with the advice to put both tags in one row', async () => {
    const res = await upload(buildDocx({ body: table([['{#items}{a}', '{b}']]) + paragraph('{/items}') }), 'bad-loop.docx').expect(422);
    expect(res.body.errors[0].message).toContain('put {#items} in the first cell and {/items} in the last cell of the same row');
  });

  it.each([
    ['legacy .doc', Buffer.from('whatever'), 'old.doc', 415, /Legacy \.doc files are not supported/],
    ['another extension', Buffer.from('plain text'), 'notes.txt', 415, /Unsupported file type "\.txt"; upload a \.docx or \.html template/],
    ['no extension', Buffer.from('x'), 'template', 415, /Unsupported file type; upload a \.docx or \.html template/],
    ['a .docx that is not a zip', Buffer.from('this is not a zip'), 'fake.docx', 422, /not a valid DOCX/],
    ['an .html that is binary, not HTML', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x01]), 'page.html', 422, /binary, not HTML text/],
    ['an OLE .docx (legacy content)', Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(600)]), 'old.docx', 422, /Legacy \.doc files/],
    [
      'a password-protected .docx',
      Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(600), Buffer.from('EncryptedPackage', 'utf16le')]),
      'secret.docx',
      422,
      /password-protected/,
    ],
  ])('refuses %s', async (_case, file, filename, status, detail) => {
    const res = await upload(file, filename).expect(status);
    expect(res.body.detail).toMatch(detail);
  });

  it('refuses an empty file and a missing file field with 422', async () => {
    expect((await upload(Buffer.alloc(0), 'empty.docx').expect(422)).body.detail).toBe('The uploaded file is empty');
    const missing = await request(harness.app).post('/api/v1/templates').set('X-API-Key', org.apiKey).field('name', 'x').expect(422);
    expect(missing.body).toEqual({
      detail: 'No template file; send it in the multipart field "file"',
      code: 'validation_failed',
      errors: [{ path: 'file', message: 'Required' }],
    });
  });

  it('refuses a JSON body with 415', async () => {
    const res = await request(harness.app).post('/api/v1/templates').set('X-API-Key', org.apiKey).send({ file: 'x' }).expect(415);
    expect(res.body.detail).toContain('multipart/form-data');
  });

  it('refuses a file over the upload limit with 413', async () => {
    const res = await upload(Buffer.alloc(MAX_UPLOAD + 1, 1), 'huge.docx').expect(413);
    expect(res.body).toEqual({ detail: 'Request body too large', code: 'body_too_large' });
  });

  it('refuses a zip bomb by its expanded size with 413', async () => {
    const bomb = new PizZip(buildDocx({ body: paragraph('{x}') }));
    bomb.file('word/media/filler.bin', Buffer.alloc(8 * 1024 * 1024));
    const file = bomb.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
    expect(file.length).toBeLessThan(MAX_UPLOAD);
    const res = await upload(file, 'bomb.docx').expect(413);
    expect(res.body.detail).toMatch(/expands to 9 MiB when unzipped; the limit is 2 MiB/);
  });
});

describe('templates: bad variable changes and queries', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;
  let id: string;

  beforeAll(async () => {
    harness = await startGatewayHarness();
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
    const res = await request(harness.app)
      .post('/api/v1/templates')
      .set('X-API-Key', org.apiKey)
      .attach('file', buildDocx({ body: paragraph('{name}{%logo}{#items}{x}{/items}') }), 't.docx')
      .expect(201);
    id = res.body.id;
  });
  afterAll(() => harness.close());

  const patch = (body: unknown) =>
    request(harness.app)
      .patch(`/api/v1/templates/${id}/variables`)
      .set('X-API-Key', org.apiKey)
      .send(body as object);

  it.each([
    [{ variables: [{ name: 'nope', required: false }] }, 'variables.0.name', '"nope" is not a variable of this template'],
    [{ variables: [{ name: 'items', type: 'date' }] }, 'variables.0.type', '"items" is a list tag; it can be list'],
    [{ variables: [{ name: 'name', type: 'image' }] }, 'variables.0.type', '"name" is a text tag; it can be text or date or number'],
    [{ variables: [{ name: 'name', format: 'DD/MM/YYYY' }] }, 'variables.0.format', '"name" is a text; only date and number variables have a format'],
    [
      { variables: [{ name: 'name', type: 'number', format: 'DD/MM/YYYY' }] },
      'variables.0.format',
      '"name" is a number; its format is an object such as {"style": "currency", "currency": "EUR"}',
    ],
    [
      { variables: [{ name: 'name', type: 'date', format: { style: 'decimal' } }] },
      'variables.0.format',
      '"name" is a date; its format is a date format string such as DD/MM/YYYY',
    ],
    [{ variables: [{ name: 'items.nope', type: 'number' }] }, 'variables.0.name', '"items.nope" is not a field of a list of this template'],
    [{ variables: [{ name: 'items.x', required: false }] }, 'variables.0.required', '"items.x" is a list field; every field of a list item is required'],
    [{ variables: [{ name: 'items.x', type: 'image' }] }, 'variables.0.type', '"items.x" is a text tag; it can be text or date or number'],
    [{ variables: [{ name: 'logo.x', type: 'number' }] }, 'variables.0.name', '"logo.x" is not a field of a list of this template'],
  ])('refuses %j', async (body, path, message) => {
    const res = await patch(body).expect(422);
    expect(res.body).toEqual({ detail: message, code: 'validation_failed', errors: [{ path, message }] });
  });

  it('refuses a format that is not a date format, and an empty list', async () => {
    const res = await patch({ variables: [{ name: 'name', type: 'date', format: 'banana' }] }).expect(422);
    expect(res.body.errors[0].path).toBe('variables.0.format');
    expect(res.body.detail).toMatch(/^Invalid variables\.0\.format: is not a date format/);
    await patch({ variables: [] }).expect(422);
    const currency = await patch({ variables: [{ name: 'name', type: 'number', format: { style: 'currency' } }] }).expect(422);
    expect(currency.body.errors).toContainEqual({ path: 'variables.0.format.currency', message: 'is required when style is currency' });
  });

  it('refuses a locale ICU cannot format, a blank name and unknown template fields', async () => {
    const res = await request(harness.app).patch(`/api/v1/templates/${id}`).set('X-API-Key', org.apiKey).send({ locale: 'xx-invalid-tag-!!' }).expect(422);
    expect(res.body.errors).toEqual([{ path: 'locale', message: 'must be a BCP 47 language tag this server can format, such as en-US, de-DE or ja-JP' }]);
    await request(harness.app).patch(`/api/v1/templates/${id}`).set('X-API-Key', org.apiKey).send({ format: 'html' }).expect(422);
    const blank = await request(harness.app).patch(`/api/v1/templates/${id}`).set('X-API-Key', org.apiKey).send({ name: '   ' }).expect(422);
    expect(blank.body.errors[0].path).toBe('name');
  });

  it('leaves the template unchanged after a refused change', async () => {
    await patch({ variables: [{ name: 'name', required: false }, { name: 'nope' }] }).expect(422);
    const read = await request(harness.app).get(`/api/v1/templates/${id}`).set('X-API-Key', org.apiKey).expect(200);
    expect(read.body.variables[0]).toEqual({ name: 'name', type: 'text', required: true });
  });

  it('refuses a non-JSON body, a bad limit and a forged cursor', async () => {
    await request(harness.app).patch(`/api/v1/templates/${id}/variables`).set('X-API-Key', org.apiKey).type('text').send('x').expect(415);
    const limit = await request(harness.app).get('/api/v1/templates?limit=0').set('X-API-Key', org.apiKey).expect(422);
    expect(limit.body.errors).toEqual([{ path: 'limit', message: 'must be a whole number from 1 to 100' }]);
    const cursor = await request(harness.app).get('/api/v1/templates?cursor=garbage').set('X-API-Key', org.apiKey).expect(422);
    expect(cursor.body.detail).toBe('Invalid cursor; pass the next_cursor of the previous page');
    // Well-formed JSON that is still no cursor of ours: a 36-hyphen id, or a date PostgreSQL cannot hold.
    const forged = (createdAt: string, cursorId: string) => Buffer.from(JSON.stringify([createdAt, cursorId])).toString('base64url');
    for (const bad of [
      forged('2026-01-01T00:00:00.000Z', '-'.repeat(36)),
      forged('-271821-04-20T00:00:00.000Z', id),
      forged('+010000-01-01T00:00:00.000Z', id),
    ]) {
      const res = await request(harness.app).get(`/api/v1/templates?cursor=${bad}`).set('X-API-Key', org.apiKey).expect(422);
      expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'cursor', message: expect.any(String) }] });
    }
    const uat = await request(harness.app).get('/api/v1/templates?is_uat=maybe').set('X-API-Key', org.apiKey).expect(422);
    expect(uat.body.errors).toEqual([{ path: 'is_uat', message: 'must be true or false' }]);
  });
});
