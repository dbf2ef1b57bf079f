import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiClient, buildDocx, paragraph, pdfText, repoRoot, startStack, table, type ApiClient, type Stack } from '@docgen/testing';

const examples = path.join(repoRoot, 'examples');

/** Every QR code or barcode zbarimg finds on the PDF's pages, rasterised at 200 dpi. */
function scanPdf(pdf: Buffer): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'expressions-pdf-'));
  try {
    writeFileSync(path.join(dir, 'doc.pdf'), pdf);
    execFileSync('pdftoppm', ['-r', '200', '-png', path.join(dir, 'doc.pdf'), path.join(dir, 'page')]);
    return readdirSync(dir)
      .filter((name) => name.endsWith('.png'))
      .flatMap((name) => {
        try {
          return execFileSync('zbarimg', ['--quiet', path.join(dir, name)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
            .trim()
            .split('\n');
        } catch {
          return []; // zbarimg exits 4 on a page without a code
        }
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('templates that compute (API §11), through the whole stack', () => {
  let stack: Stack;
  let api: ApiClient;

  beforeAll(async () => {
    stack = await startStack();
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  }, 120_000);
  afterAll(() => stack.close());

  const generate = async (templateId: string, input: unknown) => {
    const res = await api.call('POST', '/api/v1/documents', { template_id: templateId, input_json: input, output_format: 'pdf' });
    expect(res.status).toBe(202);
    return api.waitForDocument(res.body.id);
  };

  it('fills examples/computed-invoice.html: line totals, totals, a condition and a QR code that pays', async () => {
    const upload = await api.postFile('/api/v1/templates', readFileSync(path.join(examples, 'computed-invoice.html')), 'computed-invoice.html');
    expect(upload.status).toBe(201);
    const byName = Object.fromEntries((upload.body.variables as { name: string }[]).map((v) => [v.name, v]));
    expect(byName.vat_rate).toMatchObject({ type: 'number', required: true });
    expect(byName.invoice_date).toMatchObject({ type: 'date' });
    expect(byName.note).toMatchObject({ type: 'text', required: false });
    expect(byName.items).toMatchObject({ type: 'list', field_types: { price: 'number', quantity: 'number', description: 'text' } });
    const schema = await api.call('GET', `/api/v1/templates/${upload.body.id}/schema`);
    expect(schema.body.required).toEqual(expect.arrayContaining(['vat_rate', 'items', 'payment_url']));
    expect(schema.body.required).not.toContain('note');

    const data = JSON.parse(readFileSync(path.join(examples, 'computed-invoice-data.json'), 'utf8')) as Record<string, unknown>;
    const doc = await generate(upload.body.id, data);
    expect(doc.error_message).toBeUndefined();
    expect(doc.status).toBe('ready');
    const pdf = (await api.call('GET', `/api/v1/documents/${doc.id}/download`)).raw;
    const text = pdfText(pdf).replace(/\s+/g, ' ');
    expect(text).toContain('Bill to: ADA LOVELACE');
    expect(text).toContain('Date: 24 November 2026');
    expect(text).toContain('Note: none');
    // Printed by Chromium, the description fits its cell (LibreOffice wrapped "table" onto a line of its own).
    expect(text).toMatch(/Bernoulli number (table )?3 €19\.99 €59\.97/);
    expect(text).toContain('Subtotal: €1,009.97');
    expect(text).toContain('VAT 20%: €201.99');
    expect(text).toContain('Total: €1,211.96');
    expect(text).toContain('late payments carry interest');
    expect(text).not.toMatch(/undefined|NaN/);
    expect(scanPdf(pdf)).toEqual([`QR-Code:${data.payment_url as string}`]);

    // Under 1,000 the notice is not shown.
    const small = await generate(upload.body.id, { ...data, items: [{ description: 'Pen', quantity: 1, price: '2.50' }] });
    const smallText = pdfText((await api.call('GET', `/api/v1/documents/${small.id}/download`)).raw).replace(/\s+/g, ' ');
    expect(smallText).toContain('Total: €3.00');
    expect(smallText).not.toContain('late payments');
  });

  it('reads operators written straight into HTML text (&&, >, quotes) as the DOCX form does', async () => {
    const html = Buffer.from(
      "<!doctype html><html><body><p>{#status == \"paid\" && !overdue}PAID IN FULL{/}</p><p>{total > 1000 ? 'Large' : 'Small'} order</p><p>{a + b | number:2}</p></body></html>",
    );
    const upload = await api.postFile('/api/v1/templates', html, 'operators.html');
    expect(upload.status).toBe(201);
    expect(upload.body.variables).toEqual([
      { name: 'status', type: 'text', required: true },
      { name: 'overdue', type: 'boolean', required: true },
      { name: 'total', type: 'number', required: true },
      { name: 'a', type: 'text', required: true },
      { name: 'b', type: 'text', required: true },
    ]);
    const doc = await generate(upload.body.id, { status: 'paid', overdue: false, total: 1000.01, a: '0.1', b: 0.2 });
    expect(doc.status).toBe('ready');
    const text = pdfText((await api.call('GET', `/api/v1/documents/${doc.id}/download`)).raw).replace(/\s+/g, ' ');
    expect(text).toContain('PAID IN FULL');
    expect(text).toContain('Large order');
    expect(text).toContain('0.30');
  });

  it('refuses at upload, with 422 template_invalid, each expression that cannot work, with its tag and place', async () => {
    const docx = buildDocx({ body: paragraph('{price *}') + paragraph('{name | shout}'), header: paragraph('{total | currency:"EURO"}') });
    const res = await api.postFile('/api/v1/templates', docx, 'broken.docx');
    expect(res.status).toBe(422);
    expect(res.body.detail).toBe('The template has 3 errors; fix them and upload again');
    // §9's `code: "template_invalid"` is added to every error body by the error-code work, not here.
    expect(res.body.errors).toEqual([
      expect.objectContaining({ tag: '{price *}', part: 'body', message: expect.stringMatching(/ends too early.*\(at character 8 of "price \*"\)$/) }),
      expect.objectContaining({ tag: '{name | shout}', part: 'body', message: expect.stringMatching(/^"shout" is not a filter/) }),
      expect.objectContaining({ tag: '{total | currency:"EURO"}', part: 'header', message: expect.stringMatching(/three-letter currency code/) }),
    ]);
  });

  it('lists an object read by member paths in variables and the schema, formats its members, and checks them before rendering', async () => {
    const template = await api.uploadTemplate(
      buildDocx({
        body:
          paragraph('Ship to {client.name}, {client.address.city | upper}') +
          paragraph('Credit: {client.credit}') +
          paragraph('{client.note | default:"no note"}'),
      }),
      'objects.docx',
    );
    expect(template.variables).toEqual([
      {
        name: 'client',
        type: 'object',
        required: true,
        fields: ['name', 'address', 'address.city', 'credit'],
        field_types: { name: 'text', address: 'object', 'address.city': 'text', credit: 'text' },
      },
    ]);
    const patched = await api.call('PATCH', `/api/v1/templates/${template.id}/variables`, {
      variables: [{ name: 'client.credit', type: 'number', format: { style: 'currency', currency: 'EUR' } }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.variables[0]).toMatchObject({ field_types: { credit: 'number' }, field_formats: { credit: { style: 'currency', currency: 'EUR' } } });
    const refused = await api.call('PATCH', `/api/v1/templates/${template.id}/variables`, { variables: [{ name: 'client.address.city', required: false }] });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toBe('"client.address.city" is an object field; every field of an object is required');

    const schema = await api.call('GET', `/api/v1/templates/${template.id}/schema`);
    expect(schema.body.properties.client).toMatchObject({ type: 'object', required: ['name', 'address', 'credit'] });

    const ready = await generate(template.id, { client: { name: 'Ada', address: { city: 'Lyon' }, credit: '1234.5' } });
    expect(ready.status).toBe('ready');
    const text = pdfText((await api.call('GET', `/api/v1/documents/${ready.id}/download`)).raw).replace(/\s+/g, ' ');
    expect(text).toContain('Ship to Ada, LYON');
    expect(text).toContain('Credit: €1,234.50');
    expect(text).toContain('no note');

    const missing = await generate(template.id, { client: { name: 'Ada', credit: 'lots' } });
    expect(missing.status).toBe('failed');
    expect(missing.error_message).toBe(
      '2 problems: Missing required token "client.address"; Token "client.credit" must be a number (or a numeric string like "1234.50")',
    );
  });

  it('fails a document naming the tag and the row on a runtime error, and a barcode that cannot be drawn', async () => {
    const template = await api.uploadTemplate(
      buildDocx({ body: table([['{#items}{name}', '{total / quantity | number:2}{/items}']]) + paragraph('{%sku | barcode:"ean13"}') }),
      'runtime.docx',
    );
    const divided = await generate(template.id, {
      items: [
        { name: 'a', total: 10, quantity: 2 },
        { name: 'b', total: 1, quantity: 0 },
      ],
      sku: '400638133393',
    });
    expect(divided.status).toBe('failed');
    expect(divided.error_message).toBe('Tag "{total / quantity | number:2}" in item 2 of "items": "quantity" is zero: cannot divide by zero');
    const badSku = await generate(template.id, { items: [], sku: 'not digits' });
    expect(badSku.status).toBe('failed');
    expect(badSku.error_message).toMatch(/^Tag "\{%sku \| barcode:"ean13"\}": "not digits" cannot be drawn as EAN-13/);
  });
});
