import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { apiClient, buildDocx, paragraph, pngDataUri, startStack, table, type ApiClient, type Stack } from '@docgen/testing';

const logo = pngDataUri(8, 8);
const item = { name: 'Pen', qty: 2, photo: pngDataUri(4, 4) };
const valid = { name: 'Ada', due: '2026-11-22', total: 1234.5, paid: true, logo, items: [item] };

/** [input, the error_message when the schema rejects it (undefined: accepted)]. */
const CASES: [string, Record<string, unknown>, string | undefined][] = [
  ['everything', valid, undefined],
  ['a number as text, a numeric string as number, optional note absent or null', { ...valid, name: 42, total: '12.50', note: null }, undefined],
  ['unknown keys', { ...valid, extra: { anything: true } }, undefined],
  ['an empty list', { ...valid, items: [] }, undefined],
  [
    'nothing',
    {},
    '6 problems: Missing required token "name"; Missing required token "due"; Missing required token "total"; Missing required token "paid"; Missing required token "logo"; Missing required token "items"',
  ],
  ['text as an object', { ...valid, name: { first: 'Ada' } }, 'Token "name" must be text or a number'],
  ['a required value null', { ...valid, name: null }, 'Missing required token "name"'],
  ['an impossible date', { ...valid, due: '2026-02-30' }, 'Token "due" must be a date like 2026-11-22'],
  ['a date-time for a date', { ...valid, due: '2026-11-22T10:00:00Z' }, 'Token "due" must be a date like 2026-11-22'],
  ['a number in exponent notation', { ...valid, total: '1e3' }, 'Token "total" must be a number (or a numeric string like "1234.50")'],
  ['a boolean as a number', { ...valid, total: true }, 'Token "total" must be a number (or a numeric string like "1234.50")'],
  ['"true" for a boolean', { ...valid, paid: 'true' }, 'Token "paid" must be true or false'],
  ['an ftp image', { ...valid, logo: 'ftp://example.com/logo.png' }, 'Image "logo" must be an http(s):// URL or a data: URI'],
  ['a list that is not a list', { ...valid, items: 'Pen' }, 'Token "items" must be a list of objects'],
  ['a list of numbers', { ...valid, items: [1, 2] }, 'Token "items" must be a list of objects'],
  ['a row missing its photo', { ...valid, items: [item, { name: 'Ink', qty: 1 }] }, 'Missing value for "photo" in item 2 of "items"'],
  [
    'a row with a word for a number',
    { ...valid, items: [item, item, { ...item, qty: 'two' }] },
    'Token "qty" in item 3 of "items" must be a number (or a numeric string like "1234.50")',
  ],
  [
    'a row image that is not a URL',
    { ...valid, items: [{ ...item, photo: 'photo.png' }] },
    'Image "photo" in item 1 of "items" must be an http(s):// URL or a data: URI',
  ],
];

describe('GET /templates/{id}/schema is the render-time check (real worker)', () => {
  let stack: Stack;
  let api: ApiClient;
  let templateId: string;
  let validate: (input: unknown) => boolean;

  beforeAll(async () => {
    stack = await startStack({ env: { CONVERTER_POOL_SIZE: '1' } });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    const body = paragraph('{name} {note} {due} {total} {#paid}Paid{/paid} {%logo}') + table([['{#items}{name}', '{qty}', '{%photo}{/items}']]);
    templateId = (await api.uploadTemplate(buildDocx({ body }), 'schema.docx')).id;
    const patch = await api.call('PATCH', `/api/v1/templates/${templateId}/variables`, {
      variables: [
        { name: 'note', required: false },
        { name: 'due', type: 'date' },
        { name: 'total', type: 'number', format: { style: 'currency', currency: 'EUR' } },
        { name: 'items.qty', type: 'number' },
      ],
    });
    expect(patch.status).toBe(200);
    const schema = await api.call('GET', `/api/v1/templates/${templateId}/schema`);
    expect(schema.status).toBe(200);
    expect(schema.body).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', required: ['name', 'due', 'total', 'paid', 'logo', 'items'] });
    const ajv = new Ajv2020({ allErrors: true });
    addFormats(ajv);
    validate = ajv.compile(schema.body);
  }, 120_000);
  afterAll(() => stack?.close());

  it.each(CASES)('%s: schema accepts ⇔ the render does not fail for its shape', async (_, input, message) => {
    expect(validate(input)).toBe(message === undefined);
    const res = await api.call('POST', '/api/v1/documents', { template_id: templateId, input_json: input, output_format: 'docx' });
    expect(res.status).toBe(202);
    const doc = await api.waitForDocument(res.body.id as string);
    if (message === undefined) expect(doc).toMatchObject({ status: 'ready' });
    else expect(doc).toMatchObject({ status: 'failed', error_message: message });
  });

  it('is 404 for another organisation, like every template resource', async () => {
    const stranger = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    const res = await stranger.call('GET', `/api/v1/templates/${templateId}/schema`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Template not found', code: 'template_not_found' });
  });
});
