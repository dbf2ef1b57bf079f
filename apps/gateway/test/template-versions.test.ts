import { createHash } from 'node:crypto';
import request from 'supertest';
import { Template, TemplateVersion, type TemplateBody, type TemplateVersionBody } from '@docgen/contracts';
import { buildDocx, paragraph, seedOrganization, type SeededOrganization } from '@docgen/testing';
import { startRendering } from '@docgen/documents';
import { startGatewayHarness, type GatewayHarness } from './harness';
import { filesUnder } from './template-fixtures';

const binary = (res: request.Response, done: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => done(null, Buffer.concat(chunks)));
};
const sha256 = (file: Buffer) => createHash('sha256').update(file).digest('hex');

describe('template versions: draft, publish, roll back, promote (API.md §12)', () => {
  let harness: GatewayHarness;
  let org: SeededOrganization;
  let other: SeededOrganization;

  beforeAll(async () => {
    harness = await startGatewayHarness();
    org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
    other = await seedOrganization(harness.database.db, { rateLimitPerMinute: 10_000 });
  });
  afterAll(() => harness.close());

  const api = () => request(harness.app);
  const as = (key: string) => ({
    get: (path: string) => api().get(path).set('X-API-Key', key),
    post: (path: string, body: object = {}) => api().post(path).set('X-API-Key', key).send(body),
    patch: (path: string, body: object) => api().patch(path).set('X-API-Key', key).send(body),
    upload: (path: string, file: Buffer, filename: string, fields: Record<string, string> = {}) => {
      const req = api().post(path).set('X-API-Key', key).attach('file', file, filename);
      for (const [name, value] of Object.entries(fields)) req.field(name, value);
      return req;
    },
  });
  const me = () => as(org.apiKey);

  const v1 = buildDocx({ body: paragraph('Dear {name}') });
  const v2 = buildDocx({ body: paragraph('Dear {name}, you owe {amount}') });

  async function newTemplate(fields: Record<string, string> = {}, file = v1) {
    return (await me().upload('/api/v1/templates/', file, 'letter.docx', fields).expect(201)).body as TemplateBody;
  }

  it('an upload is version 1, published, attributed to the API key, fingerprinted by its file', async () => {
    const template = await newTemplate();
    expect(template).toMatchObject({ version: 1, draft_version: null, promoted_from: null });
    const { body } = await me().get(`/api/v1/templates/${template.id}/versions`).expect(200);
    expect(body.items).toHaveLength(1);
    const [version] = body.items as TemplateVersionBody[];
    expect(() => TemplateVersion.parse(version)).not.toThrow();
    const file = await me().get(`/api/v1/templates/${template.id}/versions/1/file`).buffer(true).parse(binary).expect(200);
    expect(version).toMatchObject({ version: 1, status: 'published', created_by: 'test', published_by: 'test', file_sha256: sha256(file.body as Buffer) });
    expect(version!.variables).toEqual(template.variables);
  });

  it('a new file is a draft: the published version still renders; publish is guarded, forced, and rolled back', async () => {
    const template = await newTemplate();
    const draft = await me().upload(`/api/v1/templates/${template.id}/versions`, v2, 'letter-2.docx').expect(201);
    expect(draft.body).toMatchObject({ version: 2, status: 'draft', created_by: 'test', published_at: null, published_by: null });
    expect(draft.body.variables.map((v: { name: string }) => v.name).sort()).toEqual(['amount', 'name']);

    const before = (await me().get(`/api/v1/templates/${template.id}`).expect(200)).body;
    expect(before).toMatchObject({ version: 1, draft_version: 2, variables: template.variables });
    const schema = (await me().get(`/api/v1/templates/${template.id}/schema`).expect(200)).body;
    expect(Object.keys(schema.properties)).toEqual(['name']);
    // A draft's input, to try it (the web UI checks its Form and JSON against it).
    const draftSchema = (await me().get(`/api/v1/templates/${template.id}/schema?version=2`).expect(200)).body;
    expect(Object.keys(draftSchema.properties).sort()).toEqual(['amount', 'name']);
    expect(draftSchema.required).toContain('amount');
    expect((await me().get(`/api/v1/templates/${template.id}/schema?version=9`).expect(404)).body.code).toBe('version_not_found');

    const listed = (await me().get(`/api/v1/templates/${template.id}/versions`).expect(200)).body.items;
    expect(listed.map((v: TemplateVersionBody) => [v.version, v.status])).toEqual([
      [2, 'draft'],
      [1, 'published'],
    ]);

    // {amount} is a new required variable: every caller of version 1 would fail.
    const refused = await me().post(`/api/v1/templates/${template.id}/versions/2/publish`).expect(409);
    expect(refused.body).toMatchObject({ code: 'breaking_change', errors: [{ path: 'input_json.amount', message: 'New required variable "amount"' }] });
    expect(refused.body.detail).toContain('send "force": true');
    expect((await me().get(`/api/v1/templates/${template.id}`).expect(200)).body.version).toBe(1);

    const published = await me().post(`/api/v1/templates/${template.id}/versions/2/publish`, { force: true }).expect(200);
    expect(() => Template.parse(published.body)).not.toThrow();
    expect(published.body).toMatchObject({ version: 2, draft_version: null });
    expect(published.body.variables.map((v: { name: string }) => v.name).sort()).toEqual(['amount', 'name']);
    const file = await me().get(`/api/v1/templates/${template.id}/file`).buffer(true).parse(binary).expect(200);
    expect(sha256(file.body as Buffer)).toBe(draft.body.file_sha256);
    const versions = (await me().get(`/api/v1/templates/${template.id}/versions`).expect(200)).body.items;
    expect(versions.map((v: TemplateVersionBody) => [v.version, v.status])).toEqual([
      [2, 'published'],
      [1, 'superseded'],
    ]);
    expect(versions[0].published_by).toBe('test');

    // Rolling back removes {amount}: an input with it still passes, so it is not breaking.
    const rolledBack = await me().post(`/api/v1/templates/${template.id}/versions/1/publish`).expect(200);
    expect(rolledBack.body).toMatchObject({ version: 1, variables: template.variables });
    // Publishing the published version changes nothing; the body may be left out.
    const again = await api().post(`/api/v1/templates/${template.id}/versions/1/publish`).set('X-API-Key', org.apiKey).expect(200);
    expect(again.body.updated_at).toBe(rolledBack.body.updated_at);
  });

  it('variable settings belong to a version: the published one by default, a draft with ?version=n, never a superseded one', async () => {
    const template = await newTemplate();
    await me().upload(`/api/v1/templates/${template.id}/versions`, v2, 'letter-2.docx').expect(201);
    // Making the new variable optional on the draft makes its publication non-breaking.
    const edited = await me()
      .patch(`/api/v1/templates/${template.id}/variables?version=2`, { variables: [{ name: 'amount', required: false }] })
      .expect(200);
    expect(edited.body).toMatchObject({ version: 1, draft_version: 2, variables: template.variables });
    const draft = (await me().get(`/api/v1/templates/${template.id}/versions/2`).expect(200)).body;
    expect(draft.variables.find((v: { name: string }) => v.name === 'amount')).toMatchObject({ required: false });
    await me().post(`/api/v1/templates/${template.id}/versions/2/publish`).expect(200);

    const published = await me()
      .patch(`/api/v1/templates/${template.id}/variables`, { variables: [{ name: 'name', required: false }] })
      .expect(200);
    expect(published.body.variables.find((v: { name: string }) => v.name === 'name')).toMatchObject({ required: false });
    expect((await me().get(`/api/v1/templates/${template.id}/versions/2`).expect(200)).body.variables).toEqual(published.body.variables);

    const superseded = await me()
      .patch(`/api/v1/templates/${template.id}/variables?version=1`, { variables: [{ name: 'name', required: false }] })
      .expect(422);
    expect(superseded.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'version' }] });
    await me()
      .patch(`/api/v1/templates/${template.id}/variables?version=9`, { variables: [{ name: 'name', required: false }] })
      .expect(404, {
        detail: 'Template version not found',
        code: 'version_not_found',
      });
  });

  it('a new version is checked like an upload: a broken file or the other format stores nothing and takes no number', async () => {
    const template = await newTemplate();
    const stored = (await filesUnder(harness.storageDir)).length;
    const broken = await me()
      .upload(`/api/v1/templates/${template.id}/versions`, buildDocx({ body: paragraph('Dear {name') }), 'bad.docx')
      .expect(422);
    expect(broken.body.code).toBe('template_invalid');
    const html = await me().upload(`/api/v1/templates/${template.id}/versions`, Buffer.from('<p>{name}</p>'), 'letter.html').expect(415);
    expect(html.body).toMatchObject({ code: 'unsupported_media_type' });
    expect((await filesUnder(harness.storageDir)).length).toBe(stored);
    const next = await me().upload(`/api/v1/templates/${template.id}/versions`, v2, 'letter-2.docx').expect(201);
    expect(next.body.version).toBe(2);
  });

  it('a document renders the version it was created with, even when another is published while it waits; template_version pins one, a draft too', async () => {
    const template = await newTemplate();
    await me().upload(`/api/v1/templates/${template.id}/versions`, v2, 'letter-2.docx').expect(201);
    const document = (input: object, version?: number) =>
      me().post('/api/v1/documents', { template_id: template.id, input_json: input, output_format: 'docx', ...(version ? { template_version: version } : {}) });

    const waiting = (await document({ name: 'Ada' }).expect(202)).body;
    expect(waiting.template_version).toBe(1);
    const draft = (await document({ name: 'Ada', amount: 5 }, 2).expect(202)).body;
    expect(draft.template_version).toBe(2);
    expect((await document({ name: 'Ada' }, 7).expect(404)).body).toMatchObject({ code: 'version_not_found' });
    // Past PostgreSQL's integer: a validation problem, never a statement the database refuses.
    expect((await document({ name: 'Ada' }, 3_000_000_000).expect(422)).body).toMatchObject({
      errors: [{ path: 'template_version', message: 'must be a version number of the template' }],
    });
    expect(
      (await as(other.apiKey).post('/api/v1/documents', { template_id: template.id, template_version: 1, input_json: {}, output_format: 'docx' }).expect(404))
        .body,
    ).toMatchObject({ code: 'template_not_found' });

    // Version 2 is published while the first document waits in the queue (no worker runs here).
    await me().post(`/api/v1/templates/${template.id}/versions/2/publish`, { force: true }).expect(200);
    const versionRow = (version: number) =>
      harness.database.db.templateVersion.findUniqueOrThrow({ where: { templateId_version: { templateId: template.id, version } } });
    const [first, second] = [await versionRow(1), await versionRow(2)];
    expect(first.fileKey).not.toBe(second.fileKey);
    const taken = await startRendering(harness.database.db, waiting.id, 1);
    expect(taken!.template).toMatchObject({ fileKey: first.fileKey, variables: first.variables });
    const takenDraft = await startRendering(harness.database.db, draft.id, 1);
    expect(takenDraft!.template).toMatchObject({ fileKey: second.fileKey, variables: second.variables });
    expect((await document({ name: 'Ada', amount: 5 }).expect(202)).body.template_version).toBe(2);
    expect((await me().get(`/api/v1/documents/${waiting.id}`).expect(200)).body.template_version).toBe(1);

    // A bulk job pins its rows the same way, and checks the spreadsheet against that version's variables.
    const csv = Buffer.from('name\r\nAda\r\n');
    const bulk = await me()
      .upload('/api/v1/bulk-jobs/', csv, 'rows.csv', { template_id: template.id, output_format: 'docx', template_version: '1' })
      .expect(202);
    expect(bulk.body.template_version).toBe(1);
    const rows = await harness.database.db.document.findMany({ where: { bulkJobId: bulk.body.id } });
    expect(rows.map((row) => row.templateVersion)).toEqual([1]);
    const tooLarge = await me()
      .upload('/api/v1/bulk-jobs/', csv, 'rows.csv', { template_id: template.id, output_format: 'docx', template_version: '3000000000' })
      .expect(422);
    expect(tooLarge.body).toMatchObject({ errors: [{ path: 'template_version', message: 'must be a version number of the template' }] });
    const missing = await me().upload('/api/v1/bulk-jobs/', csv, 'rows.csv', { template_id: template.id, output_format: 'docx' }).expect(422);
    expect(missing.body.detail).toContain('amount');
  });

  it("another organisation's or environment's template, and an unknown version, are 404s", async () => {
    const template = await newTemplate();
    const stranger = as(other.apiKey);
    for (const path of ['versions', 'versions/1', 'versions/1/file', 'versions/1/preview']) {
      await stranger.get(`/api/v1/templates/${template.id}/${path}`).expect(404, { detail: 'Template not found', code: 'template_not_found' });
      await me().get(`/api/v1/templates/${template.id}/${path}?is_uat=true`).expect(404, { detail: 'Template not found', code: 'template_not_found' });
    }
    await stranger.post(`/api/v1/templates/${template.id}/versions/1/publish`).expect(404);
    await stranger.upload(`/api/v1/templates/${template.id}/versions`, v2, 'letter-2.docx').expect(404);
    await stranger.post(`/api/v1/templates/${template.id}/promote?is_uat=true`).expect(404);
    for (const n of ['2', '0', 'x', '1.5', '99999999999']) {
      await me().get(`/api/v1/templates/${template.id}/versions/${n}`).expect(404, { detail: 'Template version not found', code: 'version_not_found' });
    }
    await me().post(`/api/v1/templates/${template.id}/versions/7/publish`).expect(404, { detail: 'Template version not found', code: 'version_not_found' });
  });

  it('promotion: the UAT template that was tested becomes production’s, created the first time, guarded after', async () => {
    const uat = await newTemplate({ is_uat: 'true', name: 'Dunning letter' });
    const first = await me().post(`/api/v1/templates/${uat.id}/promote?is_uat=true`).expect(200);
    expect(() => Template.parse(first.body)).not.toThrow();
    expect(first.body).toMatchObject({
      name: 'Dunning letter',
      is_uat: false,
      version: 1,
      promoted_from: { template_id: uat.id, version: 1 },
      variables: uat.variables,
    });
    const production = first.body.id as string;
    expect(production).not.toBe(uat.id);
    await me().get(`/api/v1/templates/${production}?is_uat=true`).expect(404);
    await me().get(`/api/v1/templates/${uat.id}`).expect(404);
    const uatFile = await me().get(`/api/v1/templates/${uat.id}/file?is_uat=true`).buffer(true).parse(binary).expect(200);
    const prodFile = await me().get(`/api/v1/templates/${production}/file`).buffer(true).parse(binary).expect(200);
    expect((prodFile.body as Buffer).equals(uatFile.body as Buffer)).toBe(true);

    // A production template is promoted to, not from.
    expect((await me().post(`/api/v1/templates/${production}/promote`).expect(422)).body).toMatchObject({ code: 'validation_failed' });

    // Promoting the same version again changes nothing.
    expect((await me().post(`/api/v1/templates/${uat.id}/promote?is_uat=true`).expect(200)).body).toMatchObject({ id: production, version: 1 });

    // UAT moves on with a breaking change (forced there); production refuses it until forced.
    await me().upload(`/api/v1/templates/${uat.id}/versions?is_uat=true`, v2, 'letter-2.docx').expect(201);
    await me().post(`/api/v1/templates/${uat.id}/versions/2/publish?is_uat=true`, { force: true }).expect(200);
    const refused = await me().post(`/api/v1/templates/${uat.id}/promote?is_uat=true`).expect(409);
    expect(refused.body).toMatchObject({ code: 'breaking_change', errors: [{ path: 'input_json.amount' }] });
    expect((await me().get(`/api/v1/templates/${production}`).expect(200)).body.version).toBe(1);
    const second = await me().post(`/api/v1/templates/${uat.id}/promote?is_uat=true`, { force: true }).expect(200);
    expect(second.body).toMatchObject({ id: production, version: 2, promoted_from: { template_id: uat.id, version: 2 } });
    const history = (await me().get(`/api/v1/templates/${production}/versions`).expect(200)).body.items;
    expect(history.map((v: TemplateVersionBody) => [v.version, v.status, v.promoted_from?.version])).toEqual([
      [2, 'published', 2],
      [1, 'superseded', 1],
    ]);
    // Rolling production back is a publish like any other.
    expect((await me().post(`/api/v1/templates/${production}/versions/1/publish`).expect(200)).body.version).toBe(1);
  });

  it('the OpenAPI document lists the version operations', async () => {
    const { body } = await api().get('/api/v1/openapi.json').expect(200);
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/templates/{id}/versions',
        '/api/v1/templates/{id}/versions/{n}',
        '/api/v1/templates/{id}/versions/{n}/file',
        '/api/v1/templates/{id}/versions/{n}/preview',
        '/api/v1/templates/{id}/versions/{n}/publish',
        '/api/v1/templates/{id}/promote',
      ]),
    );
    expect(body.paths['/api/v1/templates/{id}/versions/{n}/publish'].post.responses['409']).toBeDefined();
  });
});
