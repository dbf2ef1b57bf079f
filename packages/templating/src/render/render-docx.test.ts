import { readFileSync } from 'node:fs';
import path from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';
import PizZip from 'pizzip';
import { buildDocx, paragraph, table, wellBehavedDocx } from '@docgen/testing';
import { storedDocxPackage } from '../docx-package';
import { prepareDocxTemplate } from '../prepare-docx-template';
import { solidPng as makePng } from '@docgen/testing';
import { renderFailure as failure } from '../test-support/render-failure';
import { renderDocx } from './render-docx';
import { checkInput } from './input-schema';
import { imageSources } from './image-sources';
import { RenderInputError } from './render-error';

const FIXTURES = path.resolve(__dirname, '../../../../../shared/fixtures/docxtemplater');
const textOf = (docx: Buffer, part = 'word/document.xml') =>
  new PizZip(docx)
    .file(part)!
    .asText()
    .replace(/<[^>]+>/g, '');

/** Each entry of a PizZip-written archive from its local header (no data descriptors): its method (0 stored, 8 deflated), content, and recorded CRC-32. */
function zipEntries(zip: Buffer): { name: string; method: number; content: Buffer; crc: number }[] {
  const entries = [];
  for (let at = zip.indexOf('PK\x03\x04'); at >= 0; at = zip.indexOf('PK\x03\x04', at + 4)) {
    const nameLength = zip.readUInt16LE(at + 26);
    const start = at + 30 + nameLength + zip.readUInt16LE(at + 28);
    const data = zip.subarray(start, start + zip.readUInt32LE(at + 18));
    const method = zip.readUInt16LE(at + 8);
    entries.push({
      name: zip.toString('utf8', at + 30, at + 30 + nameLength),
      method,
      content: method === 8 ? inflateRawSync(data) : data,
      crc: zip.readUInt32LE(at + 14),
    });
  }
  return entries;
}

function render(upload: Buffer, input: Record<string, unknown>, images?: Parameters<typeof renderDocx>[3]) {
  const { file, variables } = prepareDocxTemplate(upload);
  return renderDocx(file, variables, input, images);
}

describe('renderDocx', () => {
  it('fails a value that would complete a fetching field around a tag, before anything is converted', () => {
    // LibreOffice reads text between a field's begin and separate as its instruction.
    const fldChar = (type: string) => `<w:r><w:fldChar w:fldCharType="${type}"/></w:r>`;
    const upload = buildDocx({
      body: `<w:p>${fldChar('begin')}<w:r><w:t>{code}</w:t></w:r>${fldChar('separate')}<w:r><w:t>x</w:t></w:r>${fldChar('end')}</w:p>`,
    });
    expect(failure(() => render(upload, { code: 'INCLUDEPICTURE "http://169.254.169.254/latest/meta-data/"' }))).toBe(
      'A value completes a field that would fetch content from elsewhere (INCLUDEPICTURE); template tags must not sit inside field codes',
    );
    expect(textOf(render(upload, { code: 'PAGE' }))).toContain('PAGE');
  });

  it('renders tag-example.docx in body, header and footer', () => {
    const docx = render(readFileSync(path.join(FIXTURES, 'tag-example.docx')), {
      first_name: 'Hipp',
      last_name: 'Edgar',
      phone: '0652455478',
      description: 'New Website',
    });
    expect(textOf(docx)).toContain('Edgar Hipp');
    const zip = new PizZip(docx);
    const headers = Object.keys(zip.files)
      .filter((n) => /word\/header\d*\.xml/.test(n))
      .map((n) => textOf(docx, n))
      .join('');
    const footers = Object.keys(zip.files)
      .filter((n) => /word\/footer\d*\.xml/.test(n))
      .map((n) => textOf(docx, n))
      .join('');
    expect(headers).toContain('Edgar Hipp0652455478New Website');
    expect(footers).toContain('EdgarHipp0652455478');
  });

  it('repeats table rows in tag-intelligent-loop-table.docx', () => {
    const clients = [
      { first_name: 'John', last_name: 'Doe', phone: '+33647874513' },
      { first_name: 'Jane', last_name: 'Doe', phone: '+33454540124' },
      { first_name: 'Phil', last_name: 'Kiel', phone: '+44578451245' },
      { first_name: 'Dave', last_name: 'Sto', phone: '+44548787984' },
    ];
    const docx = render(readFileSync(path.join(FIXTURES, 'tag-intelligent-loop-table.docx')), { clients });
    expect(textOf(docx)).toContain('JohnDoe+33647874513JaneDoe+33454540124PhilKiel+44578451245DaveSto+44548787984');
  });

  it('repeats a group of rows when a table loop runs from the first cell of one row to the last cell of a later row', () => {
    const upload = buildDocx({
      body: table([
        ['Item', 'Price'],
        ['{#items}{name}', ''],
        ['{note}', '{price}{/items}'],
        ['Total', '{total}'],
      ]),
    });
    const docx = render(upload, {
      total: '3.00',
      items: [
        { name: 'Pen', note: 'blue', price: '1.00' },
        { name: 'Ink', note: 'black', price: '2.00' },
      ],
    });
    const xml = new PizZip(docx).file('word/document.xml')!.asText();
    const rows = [...xml.matchAll(/<w:tr[ >][\s\S]*?<\/w:tr>/g)].map((row) =>
      [...row[0].matchAll(/<w:tc>[\s\S]*?<\/w:tc>/g)].map((cell) => cell[0].replace(/<[^>]+>/g, '')),
    );
    expect(rows).toEqual([
      ['Item', 'Price'],
      ['Pen', ''],
      ['blue', '1.00'],
      ['Ink', ''],
      ['black', '2.00'],
      ['Total', '3.00'],
    ]);
    expect(xml.match(/<w:tbl>/g)).toHaveLength(1);
  });

  it('keeps Hebrew text of loop-hebrew.docx, not double-escaped', () => {
    const products = [{ title: 'Duk', name: 'DukSoftware', reference: 'DS0' }, ...Array(3).fill({ title: 'Tingerloo', name: 'Tingerlee', reference: 'T00' })];
    const xml = new PizZip(render(readFileSync(path.join(FIXTURES, 'loop-hebrew.docx')), { title: 'Default title', products }))
      .file('word/document.xml')!
      .asText();
    expect(xml).toMatch(/[\u0590-\u05FF]/);
    expect(xml).not.toContain('&amp;#');
    expect(xml).toContain('DukSoftware');
  });

  it('formats dates, keeps line breaks, renders numbers and nested loops', () => {
    const upload = buildDocx({ body: paragraph('{due} {note} {n}') + paragraph('{#orders}{id}:{#lines}{sku};{/lines}{/orders}') });
    const { file, variables } = prepareDocxTemplate(upload);
    const due = variables.find((v) => v.name === 'due')!;
    Object.assign(due, { type: 'date', format: 'D MMMM YYYY' });
    const docx = renderDocx(file, variables, {
      due: '2026-11-22',
      note: 'line one\nline two',
      n: 42,
      orders: [{ id: 'A', lines: [{ sku: 'x' }, { sku: 'y' }] }],
    });
    const xml = new PizZip(docx).file('word/document.xml')!.asText();
    expect(textOf(docx)).toContain('22 November 2026 line oneline two 42');
    expect(xml).toMatch(/line one<\/w:t><\/w:r><w:r><w:br\/><\/w:r><w:r><w:t[^>]*>line two/);
    expect(textOf(docx)).toContain('A:x;y;');
  });

  it('writes the parts stored, not deflated, for a DOCX that is only converted', () => {
    const { file, variables } = prepareDocxTemplate(buildDocx({ body: paragraph('Hello {name}') }));
    const compressed = renderDocx(file, variables, { name: 'Ada' });
    const stored = renderDocx(file, variables, { name: 'Ada' }, new Map(), { compress: false });
    expect(textOf(stored)).toBe(textOf(compressed));
    // The compression method of every entry, from its local file header (0 stored, 8 deflated).
    const methods = (zip: Buffer) => [...new Set(zipEntries(zip).map((entry) => entry.method))];
    expect(methods(stored)).toEqual([0]);
    expect(methods(compressed)).toContain(8);
    expect(stored.length).toBeGreaterThan(compressed.length);
    // Deflated by Node's zlib (native-deflate.ts): every entry inflates, outside PizZip, to the CRC-32 its header records.
    for (const entry of zipEntries(compressed)) expect(crc32(entry.content)).toBe(entry.crc);
  });

  it("writes the template's pictures and inserted images as they are, stored even in a deflated DOCX, each with its checksum", () => {
    // The worker's form of a template (its parts stored): parts the fill never reads are written out as they came (zip-entry.ts).
    const upload = new PizZip(wellBehavedDocx());
    upload.file('word/document.xml', upload.file('word/document.xml')!.asText().replace('Dear {name}', 'Dear {name} {%photo}'));
    const { file, variables } = prepareDocxTemplate(upload.generate({ type: 'nodebuffer', compression: 'DEFLATE' }));
    const template = storedDocxPackage(file);
    const logo = new PizZip(template).file('word/media/image1.png')!.asNodeBuffer();
    const photo = makePng(300, 200);
    const images = new Map([['https://example.test/photo.png', { data: photo, extension: 'png' as const, width: 300, height: 200 }]]);
    for (const compress of [true, false]) {
      // Twice from the same template: the first render must leave nothing behind that changes the second.
      for (const name of ['Ada', 'Grace']) {
        const entries = zipEntries(renderDocx(template, variables, { name, photo: 'https://example.test/photo.png' }, images, { compress }));
        for (const entry of entries) expect({ name: entry.name, crc: crc32(entry.content) }).toEqual({ name: entry.name, crc: entry.crc });
        const entry = (name: string) => entries.find((candidate) => candidate.name === name)!;
        expect(entry('word/media/image1.png')).toMatchObject({ method: 0, content: logo });
        expect(entry('word/media/docgen-image-1.png')).toMatchObject({ method: 0, content: photo });
        const xmlMethods = entries.filter((candidate) => /\.(xml|rels)$/.test(candidate.name)).map((candidate) => candidate.method);
        expect(new Set(xmlMethods)).toEqual(new Set([compress ? 8 : 0]));
        expect(entry('word/document.xml').content.toString()).toContain(`Dear ${name}`);
      }
    }
  });

  it('inserts an image scaled to the text width, keeping its aspect ratio', () => {
    const png = makePng(2000, 500);
    const docx = render(
      buildDocx({ body: paragraph('Logo: {%logo}') }),
      { logo: 'https://example.test/logo.png' },
      new Map([['https://example.test/logo.png', { data: png, extension: 'png' as const, width: 2000, height: 500 }]]),
    );
    const zip = new PizZip(docx);
    expect(zip.file('word/media/docgen-image-1.png')!.asNodeBuffer().equals(png)).toBe(true);
    expect(zip.file('word/_rels/document.xml.rels')!.asText()).toContain('Target="media/docgen-image-1.png"');
    expect(zip.file('[Content_Types].xml')!.asText()).toContain('<Default Extension="png" ContentType="image/png"/>');
    const [, cx, cy] = /<wp:extent cx="(\d+)" cy="(\d+)"\/>/.exec(zip.file('word/document.xml')!.asText())!;
    expect(Number(cx)).toBe((11906 - 2 * 1134) * 635);
    expect(Number(cx) / Number(cy)).toBeCloseTo(4, 2);
  });

  it('inserts an image read from an object member, and names the member when its value is no image source', () => {
    const png = makePng(400, 100);
    const upload = buildDocx({ body: paragraph('Logo: {%client.logo}') });
    const { variables } = prepareDocxTemplate(upload);
    expect(variables).toEqual([{ name: 'client', type: 'object', required: true, fields: ['logo'], field_types: { logo: 'image' } }]);
    const source = 'https://example.test/client-logo.png';
    expect(imageSources(variables, { client: { logo: source } })).toEqual([{ source, label: 'Image "client.logo"' }]);
    const docx = render(upload, { client: { logo: source } }, new Map([[source, { data: png, extension: 'png' as const, width: 400, height: 100 }]]));
    expect(new PizZip(docx).file('word/media/docgen-image-1.png')!.asNodeBuffer().equals(png)).toBe(true);
    expect(() => checkInput(variables, { client: { logo: 'file:///etc/passwd' } })).toThrow('Image "client.logo" must be an http(s):// URL or a data: URI');
  });

  it.each([
    // Every problem, summarised (API.md §9); RenderInputError.problems keeps each with its path.
    [{}, '2 problems: Missing required token "client_name"; Missing required token "items"'],
    [{ items: [] }, 'Missing required token "client_name"'],
    [{ client_name: { first: 'x' }, items: [] }, 'Token "client_name" must be text or a number'],
    [{ client_name: 'A', items: 'not a list' }, 'Token "items" must be a list of objects'],
    [{ client_name: 'A', items: [1, 2] }, 'Token "items" must be a list of objects'],
    [
      { client_name: 'A', items: [{ price: 1 }, { name: 'B' }] },
      '2 problems: Missing value for "name" in item 1 of "items"; Missing value for "price" in item 2 of "items"',
    ],
  ])('fails %j with "%s"', (input, message) => {
    const upload = buildDocx({ body: paragraph('{client_name}') + table([['{#items}{name}', '{price}{/items}']]) });
    expect(failure(() => render(upload, input))).toBe(message);
  });

  it('refuses a value that is not a date for a date variable, and skips optional ones', () => {
    const { file, variables } = prepareDocxTemplate(buildDocx({ body: paragraph('{due}{memo}') }));
    variables[0]!.type = 'date';
    variables[1]!.required = false;
    expect(failure(() => renderDocx(file, variables, { due: '22/11/2026' }))).toBe('Token "due" must be a date like 2026-11-22');
    expect(failure(() => renderDocx(file, variables, { due: '2026-02-30' }))).toBe('Token "due" must be a date like 2026-11-22');
    expect(textOf(renderDocx(file, variables, { due: '2026-02-28' }))).toBe('2026-02-28');
  });
});

describe('every problem of an input, each with its path (API.md §9)', () => {
  it('lists each problem as input_json.<path> beside the summary', () => {
    const upload = buildDocx({ body: paragraph('{client_name} {due}') + table([['{#items}{name}', '{price}{/items}']]) });
    const prepared = prepareDocxTemplate(upload);
    try {
      checkInput(prepared.variables, { due: { x: 1 }, items: [{ name: 'a', price: 1 }, { price: 2 }] });
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(RenderInputError);
      expect((error as RenderInputError).message).toMatch(/^3 problems: Missing required token "client_name"; /);
      expect((error as RenderInputError).problems).toEqual([
        { path: 'input_json.client_name', message: 'Missing required token "client_name"' },
        { path: 'input_json.due', message: 'Token "due" must be text or a number' },
        { path: 'input_json.items[1].name', message: 'Missing value for "name" in item 2 of "items"' },
      ]);
    }
  });
});
