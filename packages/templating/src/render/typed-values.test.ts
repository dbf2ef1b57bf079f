import PizZip from 'pizzip';
import { buildDocx, paragraph, solidPng, table } from '@docgen/testing';
import { prepareDocxTemplate } from '../prepare-docx-template';
import type { TemplateVariable } from '../variables';
import { inputJsonSchema } from './input-schema';
import { renderFailure as failure } from '../test-support/render-failure';
import { renderDocx } from './render-docx';

const xmlOf = (docx: Buffer) => new PizZip(docx).file('word/document.xml')!.asText();
const textOf = (docx: Buffer) => xmlOf(docx).replace(/<[^>]+>/g, '');

function prepared(body: string, patch: (variables: TemplateVariable[]) => void = () => undefined) {
  const { file, variables } = prepareDocxTemplate(buildDocx({ body }));
  patch(variables);
  return { file, variables };
}

describe('typed values: booleans, numbers, locales', () => {
  it('shows {#paid} when true and {^paid} when false', () => {
    const { file, variables } = prepared(paragraph('{#paid}PAID IN FULL{/paid}{^paid}PAYMENT DUE{/paid}'));
    expect(variables).toEqual([{ name: 'paid', type: 'boolean', required: true }]);
    expect(textOf(renderDocx(file, variables, { paid: true }))).toBe('PAID IN FULL');
    expect(textOf(renderDocx(file, variables, { paid: false }))).toBe('PAYMENT DUE');
    expect(failure(() => renderDocx(file, variables, { paid: 'yes' }))).toBe('Token "paid" must be true or false');
  });

  it.each([
    ['de-DE', '1.234,50\u00a0€', '24. Dezember 2026', 'Donnerstag'],
    ['fr-FR', '1\u202f234,50\u00a0€', '24 décembre 2026', 'jeudi'],
    ['ja-JP', '€1,234.50', '24 12月 2026', '木曜日'],
    ['en-US', '€1,234.50', '24 December 2026', 'Thursday'],
    // Gregorian month names beside the Gregorian day and year, whatever the locale's own calendar.
    ['fa-IR', '\u200e€۱٬۲۳۴٫۵۰', '24 دسامبر 2026', 'پنجشنبه'],
    ['th-TH', '€1,234.50', '24 ธันวาคม 2026', 'วันพฤหัสบดี'],
    ['en-US-u-ca-islamic', '€1,234.50', '24 December 2026', 'Thursday'],
  ])('writes amounts and dates in %s', (locale, amount, date, weekday) => {
    const { file, variables } = prepared(paragraph('{total}|{due}|{day}'), (vars) => {
      Object.assign(vars[0]!, { type: 'number', format: { style: 'currency', currency: 'EUR', minimum_fraction_digits: 2 } });
      Object.assign(vars[1]!, { type: 'date', format: 'D MMMM YYYY' });
      Object.assign(vars[2]!, { type: 'date', format: 'dddd' });
    });
    const text = textOf(renderDocx(file, variables, { total: '1234.5', due: '2026-12-24', day: '2026-12-24' }, new Map(), { locale }));
    expect(text).toBe(`${amount}|${date}|${weekday}`);
  });

  it('formats number fields of list items and names the row of a bad one', () => {
    const { file, variables } = prepared(table([['{#items}{name}', '{price}{/items}']]), (vars) => {
      vars[0]!.field_types = { name: 'text', price: 'number' };
      vars[0]!.field_formats = { price: { style: 'decimal', minimum_fraction_digits: 2, maximum_fraction_digits: 2 } };
    });
    const items = [
      { name: 'Pen', price: 1234.5 },
      { name: 'Ink', price: '2' },
    ];
    expect(textOf(renderDocx(file, variables, { items }, new Map(), { locale: 'de-DE' }))).toBe('Pen1.234,50Ink2,00');
    expect(failure(() => renderDocx(file, variables, { items: [...items, { name: 'Cap', price: 'ten' }] }))).toBe(
      'Token "price" in item 3 of "items" must be a number (or a numeric string like "1234.50")',
    );
  });

  it('lets an item leave out a field an enclosing scope provides, as docxtemplater reads it from there', () => {
    const { file, variables } = prepared(paragraph('{currency}') + table([['{#items}{name}', '{currency}{/items}']]));
    const items = [{ name: 'Pen' }, { name: 'Ink', currency: 'USD' }];
    expect(textOf(renderDocx(file, variables, { currency: 'EUR', items }))).toBe('EURPenEURInkUSD');
    expect(inputJsonSchema(variables)).toMatchObject({ properties: { items: { items: { required: ['name'] } } } });
    expect(failure(() => renderDocx(file, variables, { currency: 'EUR', items: [{}] }))).toBe('Missing value for "name" in item 1 of "items"');
  });

  it('serves a JSON Schema of every type, required as the variables say', () => {
    const { variables } = prepared(
      paragraph('{name}{due}{total}{#paid}x{/paid}{%logo}') + table([['{#items}{%photo}', '{price}{#lines}{sku}{/lines}{/items}']]),
      (vars) => {
        Object.assign(vars[1]!, { type: 'date', required: false });
        Object.assign(vars[2]!, { type: 'number' });
        vars[5]!.field_types = { ...vars[5]!.field_types, price: 'number' };
      },
    );
    const schema = inputJsonSchema(variables);
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      required: ['name', 'total', 'paid', 'logo', 'items'],
      properties: {
        name: { type: ['string', 'number'] },
        due: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] },
        total: { anyOf: [{ type: 'number' }, { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' }] },
        paid: { type: 'boolean' },
        logo: { type: 'string', format: 'uri' },
        items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['photo', 'price', 'lines'],
            properties: { photo: { type: 'string', format: 'uri' }, lines: { type: 'array', items: { required: ['sku'] } } },
          },
        },
      },
    });
  });

  it('places a photo per row once per distinct source, fitted to the cell', () => {
    const { file, variables } = prepared(table([['{#items}{name}', '{%photo}{/items}']]));
    const wide = { data: solidPng(2000, 1000), extension: 'png' as const, width: 2000, height: 1000 };
    const images = new Map([
      ['https://img.test/a.png', wide],
      ['https://img.test/b.png', { ...wide, data: solidPng(2000, 1000, [0, 0, 200]) }],
    ]);
    const items = [
      { name: 'A', photo: 'https://img.test/a.png' },
      { name: 'B', photo: 'https://img.test/b.png' },
      { name: 'C', photo: 'https://img.test/a.png' },
    ];
    const docx = renderDocx(file, variables, { items }, images);
    const zip = new PizZip(docx);
    expect(Object.keys(zip.files).filter((name) => name.startsWith('word/media/'))).toHaveLength(2);
    const extents = [...xmlOf(docx).matchAll(/<wp:extent cx="(\d+)" cy="(\d+)"\/>/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(extents).toHaveLength(3);
    const halfTextWidth = ((11906 - 2 * 1134) * 635) / 2;
    for (const [cx, cy] of extents) {
      expect(cx).toBeLessThan(halfTextWidth);
      expect(cx! / cy!).toBeCloseTo(2, 2);
    }
  });

  it('drops the page break after the last element of a page loop, keeps the others', () => {
    const pageBreak = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';
    const { file, variables } = prepared(paragraph('{#pages}') + paragraph('Page {n}') + pageBreak + paragraph('{/pages}'));
    const xml = xmlOf(renderDocx(file, variables, { pages: [{ n: 1 }, { n: 2 }, { n: 3 }] }));
    expect(xml.match(/w:type="page"/g)).toHaveLength(2);
    const followed = prepared(paragraph('{#pages}') + paragraph('Page {n}') + pageBreak + paragraph('{/pages}') + paragraph('Appendix'));
    expect(xmlOf(renderDocx(followed.file, followed.variables, { pages: [{ n: 1 }, { n: 2 }] })).match(/w:type="page"/g)).toHaveLength(2);
  });
});
