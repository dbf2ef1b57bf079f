import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { buildDocx, paragraph, table } from '@docgen/testing';
import { prepareDocxTemplate } from '../prepare-docx-template';
import { inputJsonSchema } from '../render/input-schema';
import { OutputTooLargeError } from '../render/estimate-output';
import { renderDocx } from '../render/render-docx';
import { RenderInputError } from '../render/render-error';
import { fillHtml, prepareHtmlTemplate } from '../html/html-template';
import { TemplateError, type TemplateIssue } from '../template-error';
import { renderFailure as failure } from '../test-support/render-failure';

const xmlOf = (docx: Buffer) => new PizZip(docx).file('word/document.xml')!.asText();
const textOf = (docx: Buffer) => xmlOf(docx).replace(/<[^>]+>/g, '');
const prepared = (body: string) => prepareDocxTemplate(buildDocx({ body }));

function uploadIssues(body: string): TemplateIssue[] {
  try {
    prepared(body);
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateError);
    return (error as TemplateError).issues;
  }
  throw new Error('expected the upload to be refused');
}

const items = [
  { description: 'Pen', price: '19.99', quantity: 3 },
  { description: 'Ink', price: 0.1, quantity: 1 },
];

describe('expressions in DOCX templates', () => {
  it('computes line totals, a total, a condition and filters', () => {
    const { file, variables } = prepared(
      paragraph('{client_name | upper}') +
        table([['{#items}{description}', '{price * quantity | number:2}{/items}']]) +
        paragraph('Total: {items | sum:"price * quantity" | currency:"EUR"}') +
        paragraph('{#(items | sum:"price * quantity") > 50}LATE FEES APPLY{/}{^items.length > 1}single{/}') +
        paragraph('{note | default:"n/a"}|{0.1 + 0.2 | number:2}|{due | date:"D MMMM YYYY"}'),
    );
    expect(variables).toEqual([
      { name: 'client_name', type: 'text', required: true },
      {
        name: 'items',
        type: 'list',
        required: true,
        fields: ['price', 'quantity', 'description'],
        field_types: { price: 'number', quantity: 'number', description: 'text' },
      },
      { name: 'note', type: 'text', required: false },
      { name: 'due', type: 'date', required: true },
    ]);
    const text = textOf(renderDocx(file, variables, { client_name: 'Ada', items, due: '2026-12-24' }, new Map(), { locale: 'de-DE' }));
    expect(text).toBe('ADAPen59,97Ink0,10Total: 60,07\u00a0€LATE FEES APPLYn/a|0,30|24. Dezember 2026');
  });

  it('keeps plain tags printing the prepared value while expressions compute on the input', () => {
    const { file, variables } = prepared(paragraph('{total}|{total * 2}'));
    expect(variables).toEqual([{ name: 'total', type: 'number', required: true }]);
    expect(textOf(renderDocx(file, variables, { total: '1234.5' }))).toBe('1,234.5|2,469');
  });

  it('reads enclosing scopes inside loops and closes a section with {/}', () => {
    // `rate` is read from the top level in every row (a plain tag there makes it a top-level variable).
    const { file, variables } = prepared(paragraph('{rate}') + table([['{#items}{description}: {price * rate | number:2}', '{#price > 1}big{/}{/items}']]));
    const text = textOf(renderDocx(file, variables, { items, rate: 2 }));
    expect(text).toBe('2Pen: 39.98bigInk: 0.20');
  });

  it('reads member paths of objects', () => {
    const { file, variables } = prepared(paragraph('{client.address.city | upper}'));
    expect(textOf(renderDocx(file, variables, { client: { address: { city: 'Lyon' } } }))).toBe('LYON');
    expect(failure(() => renderDocx(file, variables, { client: { name: 'x' } }))).toBe('Missing required token "client.address"');
    expect(failure(() => renderDocx(file, variables, { client: { address: 'Lyon' } }))).toBe('Token "client.address" must be an object');
  });

  it('lists objects read by member paths, with their members typed by use, at the top level and in loops', () => {
    const { file, variables } = prepared(
      paragraph('{client.name} {client.address.city | upper} {client.discount * 2} {client.note | default:"-"}') +
        table([['{#items}{product.name}', '{product.price | currency:"EUR"}{/items}']]),
    );
    expect(variables).toEqual([
      {
        name: 'client',
        type: 'object',
        required: true,
        fields: ['name', 'address', 'address.city', 'discount'],
        field_types: { name: 'text', address: 'object', 'address.city': 'text', discount: 'number' },
      },
      {
        name: 'items',
        type: 'list',
        required: true,
        fields: ['product', 'product.name', 'product.price'],
        field_types: { product: 'object', 'product.name': 'text', 'product.price': 'number' },
      },
    ]);
    const schema = inputJsonSchema(variables) as { properties: Record<string, Record<string, unknown>> };
    expect(schema.properties.client).toMatchObject({
      type: 'object',
      required: ['name', 'address', 'discount'],
      properties: { address: { type: 'object', required: ['city'] } },
    });
    const client = { name: 'Ada', address: { city: 'Lyon' }, discount: '0.15' };
    const input = { client, items: [{ product: { name: 'Pen', price: '19.99' } }] };
    expect(textOf(renderDocx(file, variables, input))).toBe('Ada LYON 0.3 -Pen€19.99');
    expect(failure(() => renderDocx(file, variables, { ...input, client: { ...client, discount: 'lots' } }))).toBe(
      'Token "client.discount" must be a number (or a numeric string like "1234.50")',
    );
    expect(failure(() => renderDocx(file, variables, { ...input, items: [{ product: { name: 'Pen' } }] }))).toBe(
      'Missing value for "product.price" in item 1 of "items"',
    );
  });

  it('keeps a name read both as text and as an object an upload problem, and leaves a section on a member undescribed', () => {
    expect(uploadIssues(paragraph('{client} {client.name}'))[0]!.message).toBe('"client" is used both as text and as object; use one kind of tag per name');
    const { variables } = prepared(paragraph('{#client.vip}VIP{/} {#client}{/client}{client.name}'));
    expect(variables).toEqual([{ name: 'client', type: 'object', required: true, fields: ['name'], field_types: { name: 'text' } }]);
  });

  it('fails a document naming the tag, the value and the row, never printing NaN', () => {
    const { file, variables } = prepared(table([['{#items}{description}', '{price / quantity}{/items}']]));
    expect(failure(() => renderDocx(file, variables, { items: [...items, { description: 'Cap', price: 1, quantity: 0 }] }))).toBe(
      'Tag "{price / quantity}" in item 3 of "items": "quantity" is zero: cannot divide by zero',
    );
    const sum = prepared(paragraph('{items | sum:"price"}'));
    expect(failure(() => renderDocx(sum.file, sum.variables, { items: [{ price: 1 }, { price: 2 }, { price: 'abc' }] }))).toMatch(
      /Token "price" in item 3 of "items" must be a number|item 3 of "items" gives "abc", not a number/,
    );
  });

  it('stops a document whose expressions take longer than EXPRESSION_TIMEOUT_MS', () => {
    const { file, variables } = prepared(paragraph('{rows | sum:"a * b + a * b + a * b"}'.repeat(3)));
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ a: i, b: 1.5 }));
    expect(failure(() => renderDocx(file, variables, { rows }, new Map(), { expressionTimeoutMs: 1 }))).toMatch(
      /^Tag "\{rows \| sum:"a \* b \+ a \* b \+ a \* b"\}": The template's expressions took longer than 1 ms$/,
    );
    // Given the time, aggregates over 10,000 rows compute exactly (their speed is measured in bench/, not here).
    expect(textOf(renderDocx(file, variables, { rows }, new Map(), { expressionTimeoutMs: 600_000 }))).toContain('224,977,500');
  });

  it('refuses expressions that do not parse, unknown filters and bad arguments at upload, each with its tag and place', () => {
    const issues = uploadIssues(
      paragraph('{price *}') +
        paragraph('{name | shout}') +
        paragraph('{amount | number:"two"}') +
        paragraph('{x.constructor}') +
        paragraph('{items | sum:"a +"}'),
    );
    expect(issues).toEqual([
      { tag: '{price *}', part: 'body', message: 'The expression ends too early; a value or a name was expected (at character 8 of "price *")' },
      { tag: '{name | shout}', part: 'body', message: expect.stringMatching(/^"shout" is not a filter; the filters are upper, lower/) },
      { tag: '{amount | number:"two"}', part: 'body', message: expect.stringMatching(/number's argument is the number of decimals/) },
      { tag: '{x.constructor}', part: 'body', message: expect.stringMatching(/"constructor" cannot be used in an expression/) },
      { tag: '{items | sum:"a +"}', part: 'body', message: expect.stringMatching(/In "sum:"a \+"": The expression ends too early/) },
    ]);
    expect(uploadIssues(paragraph('{payment_url | qrcode}'))[0]!.message).toMatch(/use it last in an image tag/);
    expect(prepared(paragraph('{client name}')).variables).toEqual([{ name: 'client_name', type: 'text', required: true }]);
  });

  it('gives the schema the inferred types: a default makes a value optional', () => {
    const { variables } = prepared(paragraph('{subtotal - discount}{due | date}{note | default:"-"}{items | count}'));
    const schema = inputJsonSchema(variables) as { required: string[]; properties: Record<string, { type?: string; anyOf?: unknown[] }> };
    expect(schema.required).toEqual(['subtotal', 'discount', 'due', 'items']);
    expect(Object.keys(schema.properties)).toEqual(['subtotal', 'discount', 'due', 'note', 'items']);
    expect(variables.find((v) => v.name === 'due')!.type).toBe('date');
    expect(failure(() => renderDocx(prepared(paragraph('{a * 2}')).file, [{ name: 'a', type: 'number', required: true }], { a: 'ten' }))).toBe(
      'Token "a" must be a number (or a numeric string like "1234.50")',
    );
  });

  it('draws QR codes and barcodes sized for the page, that a scanner reads', () => {
    const { file, variables } = prepared(paragraph('{%payment_url | qrcode:"H"}') + table([['{#items}{%sku | barcode:"code128"}{/items}']]));
    expect(variables).toEqual([
      { name: 'payment_url', type: 'text', required: true },
      { name: 'items', type: 'list', required: true, fields: ['sku'], field_types: { sku: 'text' } },
    ]);
    const docx = renderDocx(file, variables, { payment_url: 'https://pay.example.com/i/42', items: [{ sku: 'SKU-1' }, { sku: 'SKU-2' }] });
    const zip = new PizZip(docx);
    const media = Object.keys(zip.files).filter((name) => name.startsWith('word/media/'));
    expect(media).toHaveLength(3);
    const dir = mkdtempSync(join(tmpdir(), 'docx-barcodes-'));
    try {
      const decoded = media.map((name) => {
        const path = join(dir, name.replace(/\//g, '_'));
        writeFileSync(path, zip.file(name)!.asNodeBuffer());
        return execFileSync('zbarimg', ['--quiet', path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      });
      expect(decoded.sort()).toEqual(['CODE-128:SKU-1', 'CODE-128:SKU-2', 'QR-Code:https://pay.example.com/i/42']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(
      failure(() => renderDocx(prepared(paragraph('{%sku | barcode:"ean13"}')).file, [{ name: 'sku', type: 'text', required: true }], { sku: 'ABC' })),
    ).toMatch(/^Tag "\{%sku \| barcode:"ean13"\}": "ABC" cannot be drawn as EAN-13/);
  });

  it("keeps a document's barcodes within its pixel budget: long values in a loop are refused before they are drawn", () => {
    const { file, variables } = prepared(table([['{#codes}{%c | barcode:"code128"}{/codes}']]));
    const codes = Array.from({ length: 200 }, (_, i) => ({ c: `${i}`.padStart(120, 'A') }));
    const started = performance.now();
    expect(failure(() => renderDocx(file, variables, { codes }))).toMatch(
      /^Tag "\{%c \| barcode:"code128"\}": "A{40}…" as Code 128 would be \d+ × \d+ pixels, more than the document's QR codes and barcodes may draw/,
    );
    // About ten of them drawn (50 million pixels), not two hundred (about 30 s of drawing here).
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('an HTML fill keeps the same budget, and an image it cannot print fails the document as its input', () => {
    const prepared = prepareHtmlTemplate(Buffer.from('<table>{#codes}<tr><td>{%c | barcode:"code128"}</td></tr>{/codes}</table>'));
    const codes = Array.from({ length: 200 }, (_, i) => ({ c: `${i}`.padStart(120, 'A') }));
    expect(failure(() => fillHtml(prepared.html, prepared.variables, { codes }))).toMatch(/more than the document's QR codes and barcodes may draw/);

    // An image fetched under an operator's larger MAX_IMAGE_PIXELS, past what a printed page takes: the header says 10,000 × 10,000.
    const header = Buffer.alloc(13);
    header.writeUInt32BE(10_000, 0);
    header.writeUInt32BE(10_000, 4);
    header.set([8, 6, 0, 0, 0], 8);
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d', 'hex'), Buffer.from('IHDR'), header, Buffer.alloc(4)]);
    const withPhoto = prepareHtmlTemplate(Buffer.from('<p>{%photo}</p>'));
    const images = new Map([['https://example.test/big.png', { data: png, extension: 'png' as const, width: 10_000, height: 10_000 }]]);
    const error = (() => {
      try {
        fillHtml(withPhoto.html, withPhoto.variables, { photo: 'https://example.test/big.png' }, images);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(RenderInputError);
    expect((error as Error).message).toMatch(/^The filled document cannot be printed: An <img> data: image .*; send a smaller image$/);
  });

  it('keeps templates stored before tags could compute working: a tag whose text is a key of the data', () => {
    // Stored by other means (no upload check): `{client-name}` and `{1st.line}` were literal keys.
    const file = buildDocx({ body: paragraph('{client-name}|{1st.line}|{price *}') });
    const variables = [
      { name: 'client-name', type: 'text' as const, required: true },
      { name: '1st.line', type: 'text' as const, required: true },
    ];
    expect(textOf(renderDocx(file, variables, { 'client-name': 'Ada', '1st.line': 'Main St', 'price *': 'x' }))).toBe('Ada|Main St|x');
    expect(failure(() => renderDocx(file, variables, { 'client-name': 'Ada', '1st.line': 'Main St' }))).toBe(
      'Tag "{price *}": The expression ends too early; a value or a name was expected',
    );
  });

  it('refuses a loop bomb of computing rows before evaluating anything', () => {
    const { file, variables } = prepared(table([['{#items}{price * quantity | currency:"EUR"} ' + 'x'.repeat(2000), '{/items}']]));
    const items = Array.from({ length: 100_000 }, () => ({ price: 1, quantity: 1 }));
    expect(() => renderDocx(file, variables, { items }, new Map(), { maxOutputBytes: 50 * 1024 * 1024, expressionTimeoutMs: 60_000 })).toThrow(
      OutputTooLargeError,
    );
  });

  it('counts a condition section as shown when estimating the output', () => {
    const { file, variables } = prepared(paragraph('{#flag > 0}') + table([['{#items}{name}' + 'y'.repeat(2000), '{/items}']]) + paragraph('{/}'));
    const items = Array.from({ length: 50_000 }, () => ({ name: 'a' }));
    expect(() => renderDocx(file, variables, { flag: 1, items }, new Map(), { maxOutputBytes: 20 * 1024 * 1024 })).toThrow(OutputTooLargeError);
  });
});
