import { readFileSync } from 'node:fs';
import path from 'node:path';
import PizZip from 'pizzip';
import { buildDocx, paragraph, run, table, textBox } from '@docgen/testing';
import { prepareDocxTemplate } from './prepare-docx-template';
import { TemplateError } from './template-error';

const FIXTURES = path.resolve(__dirname, '../../../../shared/fixtures/docxtemplater');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));

function syntaxIssues(file: Buffer) {
  try {
    prepareDocxTemplate(file);
  } catch (error) {
    expect(error).toBeInstanceOf(TemplateError);
    expect((error as TemplateError).kind).toBe('syntax');
    return (error as TemplateError).issues;
  }
  throw new Error('expected the template to be rejected');
}

const partText = (file: Buffer, part = 'word/document.xml') =>
  new PizZip(file)
    .file(part)!
    .asText()
    .replace(/<[^>]+>/g, '');

describe('prepareDocxTemplate on docxtemplater fixtures', () => {
  it('finds the text tags of tag-example.docx in body, header and footer', () => {
    const { variables, correctedTokens } = prepareDocxTemplate(fixture('tag-example.docx'));
    expect(variables.map((v) => v.name).sort()).toEqual(['description', 'first_name', 'last_name', 'phone']);
    expect(variables.every((v) => v.type === 'text' && v.required)).toBe(true);
    expect(correctedTokens).toEqual([]);
  });

  it('finds the table row loop and its fields in tag-intelligent-loop-table.docx', () => {
    const { variables } = prepareDocxTemplate(fixture('tag-intelligent-loop-table.docx'));
    expect(variables).toEqual([
      {
        name: 'clients',
        type: 'list',
        required: true,
        fields: ['first_name', 'last_name', 'phone'],
        field_types: { first_name: 'text', last_name: 'text', phone: 'text' },
      },
    ]);
  });

  it('reads loop-hebrew.docx', () => {
    const { variables } = prepareDocxTemplate(fixture('loop-hebrew.docx'));
    expect(variables).toEqual([
      {
        name: 'products',
        type: 'list',
        required: true,
        fields: ['title', 'name', 'reference'],
        field_types: { title: 'text', name: 'text', reference: 'text' },
      },
    ]);
  });

  it('rejects one-unclosed.docx with exactly one error', () => {
    const issues = syntaxIssues(fixture('one-unclosed.docx'));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ part: 'body', tag: '{lastNameRest' });
    expect(issues[0]!.message).toContain('is not closed');
  });

  it('rejects multiple-unclosed.docx with three errors', () => {
    const issues = syntaxIssues(fixture('multiple-unclosed.docx'));
    expect(issues.map((issue) => issue.tag)).toEqual(['{firstName', '{lastName', '{%image']);
  });
});

describe('prepareDocxTemplate on built documents', () => {
  it('reads a tag that Word split across runs as one tag, and leaves the file untouched', () => {
    const upload = buildDocx({ body: paragraph(run('Dear {cli'), run('ent_na', true), run('me},')) });
    const prepared = prepareDocxTemplate(upload);
    expect(prepared.variables).toEqual([{ name: 'client_name', type: 'text', required: true }]);
    expect(prepared.file).toBe(upload);
  });

  it('rewrites token names with spaces to underscores, even split across runs, and reports them', () => {
    const upload = buildDocx({
      body: paragraph(run('Hello {client'), run(' name}'), run(' and { due  date }')) + table([['{#line items}{unit price}{/line items}']]),
    });
    const prepared = prepareDocxTemplate(upload);
    expect(prepared.correctedTokens).toEqual([
      { from: 'client name', to: 'client_name' },
      { from: 'due  date', to: 'due_date' },
      { from: 'line items', to: 'line_items' },
      { from: 'unit price', to: 'unit_price' },
    ]);
    expect(prepared.variables.map((v) => v.name)).toEqual(['client_name', 'due_date', 'line_items']);
    expect(prepared.variables[2]).toMatchObject({ type: 'list', fields: ['unit_price'] });
    expect(partText(prepared.file)).toBe('Hello {client_name} and {due_date}{#line_items}{unit_price}{/line_items}');
  });

  it('accepts a row loop from the first to the last cell of one row', () => {
    const { variables } = prepareDocxTemplate(
      buildDocx({
        body: table([
          ['Item', 'Price'],
          ['{#items}{name}', '{price}{/items}'],
        ]),
      }),
    );
    expect(variables).toEqual([{ name: 'items', type: 'list', required: true, fields: ['name', 'price'], field_types: { name: 'text', price: 'text' } }]);
  });

  it('accepts a loop spread over two rows of one table (a repeated group of rows)', () => {
    const { variables } = prepareDocxTemplate(
      buildDocx({
        body: table([
          ['{#items}{name}', ''],
          ['', '{price}{/items}'],
        ]),
      }),
    );
    expect(variables[0]).toMatchObject({ name: 'items', fields: ['name', 'price'] });
  });

  it('rejects a loop that starts in a table and ends outside it, saying where to put the tags', () => {
    const issues = syntaxIssues(buildDocx({ body: table([['{#items}{name}', '{price}']]) + paragraph('{/items}') }));
    expect(issues).toEqual([
      {
        tag: '{#items}',
        part: 'body',
        message:
          'The loop "items" starts inside a table and ends outside it (or the reverse); put {#items} in the first cell and {/items} in the last cell of the same row',
      },
    ]);
  });

  it('rejects a loop that starts in one table and ends in another', () => {
    const issues = syntaxIssues(buildDocx({ body: table([['{#items}{name}']]) + paragraph('between') + table([['{/items}']]) }));
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toContain(
      'starts in one table and ends in another; put {#items} in the first cell and {/items} in the last cell of the same row',
    );
  });

  it('reports every problem at once: mismatched loop end, unopened loop end, unclosed tag', () => {
    const issues = syntaxIssues(buildDocx({ body: paragraph('{#a}x{/b}') + paragraph('{/orphan}') + paragraph('{broken') }));
    expect(issues.map((i) => i.tag)).toEqual(expect.arrayContaining(['{#a}', '{/orphan}', '{broken']));
    expect(issues.find((i) => i.tag === '{#a}')!.message).toBe('The loop "{#a}" is closed by "{/b}"; close it with "{/a}"');
  });

  it('reports an unopened tag such as "foo}" as a syntax error saying to add the "{"', () => {
    const issues = syntaxIssues(buildDocx({ body: paragraph('Dear {client_name},') + paragraph('Total: foo} EUR') }));
    expect(issues).toEqual([{ tag: 'foo}', part: 'body', message: 'The tag "foo}" has no opening "{"; add "{" before it or remove the "}"' }]);
  });

  it('counts tags in headers, footers and text boxes, and says which part a problem is in', () => {
    const upload = buildDocx({
      header: paragraph('{company}'),
      footer: paragraph('Page of {doc ref}'),
      body: paragraph('{title}') + textBox(paragraph('{box_note}')),
    });
    const prepared = prepareDocxTemplate(upload);
    expect(prepared.variables.map((v) => v.name).sort()).toEqual(['box_note', 'company', 'doc_ref', 'title']);
    expect(prepared.correctedTokens).toEqual([{ from: 'doc ref', to: 'doc_ref' }]);
    expect(partText(prepared.file, 'word/footer1.xml')).toBe('Page of {doc_ref}');

    const broken = syntaxIssues(buildDocx({ footer: paragraph('{page'), body: paragraph('ok') }));
    expect(broken).toEqual([expect.objectContaining({ part: 'footer', tag: '{page' })]);
  });

  it('detects image tags and nested loops', () => {
    const upload = buildDocx({
      body: paragraph('{%logo}') + paragraph('{#orders}{id}') + paragraph('{#lines}{sku} {qty}{/lines}') + paragraph('{/orders}'),
    });
    expect(prepareDocxTemplate(upload).variables).toEqual([
      { name: 'logo', type: 'image', required: true },
      {
        name: 'orders',
        type: 'list',
        required: true,
        fields: ['id', 'lines', 'lines.sku', 'lines.qty'],
        field_types: { id: 'text', lines: 'list', 'lines.sku': 'text', 'lines.qty': 'text' },
      },
    ]);
  });

  it('accepts image tags inside loops at any depth, typed as image fields', () => {
    const { variables } = prepareDocxTemplate(
      buildDocx({
        header: paragraph('{#offices}{city}{%office_logo}{/offices}'),
        body: paragraph('{%logo}') + table([['{#items}{name}', '{%photo}{/items}']]) + paragraph('{#a}{#b}{% badge }{/b}{/a}'),
      }),
    );
    expect(variables.find((v) => v.name === 'items')!.field_types).toEqual({ name: 'text', photo: 'image' });
    expect(variables.find((v) => v.name === 'a')!.field_types).toEqual({ b: 'list', 'b.badge': 'image' });
    expect(variables.find((v) => v.name === 'offices')!.field_types).toEqual({ city: 'text', office_logo: 'image' });
  });

  it('detects a section with no tags inside as a boolean, top-level and inside loops', () => {
    const { variables } = prepareDocxTemplate(
      buildDocx({
        body:
          paragraph('{#paid}Paid{/paid}{^paid}Due{/paid}') +
          paragraph('{#rows}{name}{#urgent}!{/urgent}{/rows}') +
          paragraph('{#tags}{label}{/tags}{#tags}x{/tags}'),
      }),
    );
    expect(variables).toEqual([
      { name: 'paid', type: 'boolean', required: true },
      { name: 'rows', type: 'list', required: true, fields: ['name', 'urgent'], field_types: { name: 'text', urgent: 'boolean' } },
      { name: 'tags', type: 'list', required: true, fields: ['label'], field_types: { label: 'text' } },
    ]);
  });

  it('refuses raw XML tags and a name used as two kinds of tag', () => {
    expect(syntaxIssues(buildDocx({ body: paragraph('{@raw}') }))).toEqual([
      { tag: '{@raw}', part: 'body', message: 'Raw XML tags ({@name}) are not supported; use {name}' },
    ]);
    expect(syntaxIssues(buildDocx({ body: paragraph('{items}') + paragraph('{#items}{x}{/items}') }))[0]!.message).toBe(
      '"items" is used both as text and as list; use one kind of tag per name',
    );
  });
});

describe('prepareDocxTemplate on files that are not templates', () => {
  const rejects = (file: Buffer, kind: string, message: RegExp, limits?: Parameters<typeof prepareDocxTemplate>[1]) => {
    try {
      prepareDocxTemplate(file, limits);
    } catch (error) {
      expect(error).toMatchObject({ kind });
      expect((error as Error).message).toMatch(message);
      return;
    }
    throw new Error('expected a rejection');
  };

  it('refuses an empty file, a non-zip, a zip without a document, legacy .doc and encrypted DOCX', () => {
    rejects(Buffer.alloc(0), 'invalid', /empty/);
    rejects(Buffer.from('hello, not a docx'), 'invalid', /not a zip archive/);
    const zip = new PizZip();
    zip.file('readme.txt', 'hi');
    rejects(zip.generate({ type: 'nodebuffer' }), 'invalid', /word\/document.xml is missing/);
    const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(512)]);
    rejects(ole, 'invalid', /Legacy .doc files are not supported/);
    rejects(Buffer.concat([ole, Buffer.from('EncryptedPackage', 'utf16le')]), 'invalid', /password-protected/);
  });

  it('refuses a [Content_Types].xml entry missing an attribute, which xmldom only warns about (found by the upload fuzz test)', () => {
    const broken = (from: string, to: string) => {
      const zip = new PizZip(buildDocx({ body: paragraph('Dear {name}') }));
      const types = zip.file('[Content_Types].xml')!.asText();
      expect(types).toContain(from);
      zip.file('[Content_Types].xml', types.replace(from, to));
      return zip.generate({ type: 'nodebuffer' });
    };
    rejects(
      broken('<Default Extension="xml"', '<Default Ext ension="xml"'),
      'invalid',
      /^The DOCX part \[Content_Types\]\.xml has a Default without Extension;/,
    );
    rejects(broken('<Override PartName=', '<Override Part Name='), 'invalid', /has an Override without PartName;/);
  });

  it('refuses a zip that expands past the limit before inflating it', () => {
    const bomb = new PizZip(buildDocx({ body: paragraph('x') }));
    bomb.file('word/media/padding.bin', Buffer.alloc(3 * 1024 * 1024));
    const compressed = bomb.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
    expect(compressed.length).toBeLessThan(100 * 1024);
    rejects(compressed, 'too_large', /expands to 4 MiB when unzipped; the limit is 2 MiB/, { maxExpandedBytes: 2 * 1024 * 1024, maxEntries: 100 });
  });
});
