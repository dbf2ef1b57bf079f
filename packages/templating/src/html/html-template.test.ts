import { load } from 'cheerio';
import { buildDocx, paragraph, pngDataUri, solidPng, table } from '@docgen/testing';
import { prepareDocxTemplate } from '../prepare-docx-template';
import { RenderInputError } from '../render/render-error';
import { TemplateError } from '../template-error';
import { fillHtml, prepareHtmlTemplate } from './html-template';
import { pageSideMargins } from './print-layout';

const html = (body: string, head = '') => Buffer.from(`<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`);

const INVOICE = html(
  `<h1 title="Invoice {number}">Invoice {number}</h1>
   <table><thead><tr><th>Item</th><th>Qty</th></tr></thead>
   <tbody>{#items}<tr><td>{description}</td><td>{qty}</td></tr>{/items}</tbody></table>
   <ul>{#tags}<li>{name}</li>{/tags}</ul>
   {#paid}<p class="stamp">PAID</p>{/paid}`,
  '<style>h1 { color: #123456 } .stamp { border-radius: 4px }</style>',
);

function fill(template: Buffer, input: Record<string, unknown>, options: Parameters<typeof fillHtml>[4] = {}) {
  const prepared = prepareHtmlTemplate(template);
  const printable = fillHtml(prepared.html, prepared.variables, input, undefined, options);
  return { prepared, printable, $: load(printable.html) };
}

describe('HTML templates', () => {
  it('reads a section that wraps rows and list items as a list, not a boolean', () => {
    const { variables } = prepareHtmlTemplate(INVOICE);
    expect(variables).toEqual([
      { name: 'number', type: 'text', required: true },
      { name: 'items', type: 'list', required: true, fields: ['description', 'qty'], field_types: { description: 'text', qty: 'text' } },
      { name: 'tags', type: 'list', required: true, fields: ['name'], field_types: { name: 'text' } },
      { name: 'paid', type: 'boolean', required: true },
    ]);
  });

  it('repeats the wrapped row and list item once per element, and keeps the stylesheet', () => {
    const { $ } = fill(INVOICE, {
      number: 'A-7',
      items: [
        { description: 'Widget', qty: '2' },
        { description: 'Gadget', qty: '5' },
      ],
      tags: [{ name: 'red' }, { name: 'blue' }],
      paid: true,
    });
    expect($('tbody tr').length).toBe(2);
    expect($('tbody tr').eq(1).find('td').first().text()).toBe('Gadget');
    expect(
      $('ul li')
        .map((_, li) => $(li).text())
        .get(),
    ).toEqual(['red', 'blue']);
    expect($('h1').attr('title')).toBe('Invoice A-7');
    expect($('.stamp').text()).toBe('PAID');
    expect($('style').text()).toContain('h1 { color: #123456 }');
    expect($('style').text()).toContain('border-radius: 4px');
  });

  it('accepts the cell form of a row loop (§2) and reads it as the row form', () => {
    const template = html('<table><tr><td>{#lines}{sku}</td><td>{price}{/lines}</td></tr></table>');
    const { prepared, $ } = fill(template, {
      lines: [
        { sku: 'A', price: '1' },
        { sku: 'B', price: '2' },
      ],
    });
    expect(prepared.variables[0]).toMatchObject({ name: 'lines', type: 'list', fields: ['sku', 'price'] });
    expect(
      $('tr')
        .map((_, tr) => $(tr).text())
        .get(),
    ).toEqual(['A1', 'B2']);
  });

  it('inserts values as text, never markup, in text and attributes alike', () => {
    const template = html('<p title="{note}">{note}</p>{#items}<div>{description}</div>{/items}');
    const attack = '"><img src=x onerror=alert(1)><script>alert(2)</script>';
    const { $ } = fill(template, { note: attack, items: [{ description: '<b>bold</b>' }] });
    expect($('p').text()).toBe(attack);
    expect($('p').attr('title')).toBe(attack);
    expect($('div').text()).toBe('<b>bold</b>');
    expect($('script, b, img').length).toBe(0);
  });

  it('fills each stored template from its own text, however many documents of each came before', () => {
    const other = html('<h2>Order {number}</h2>', '<style>h2 { color: #654321 }</style>');
    for (let round = 0; round < 2; round++) {
      const invoice = fill(INVOICE, { number: `A-${round}`, items: [], tags: [], paid: false }).$;
      const order = fill(other, { number: `B-${round}` }).$;
      expect(invoice('h1').text()).toBe(`Invoice A-${round}`);
      expect(invoice('style').text()).toContain('#123456');
      expect(order('h2').text()).toBe(`Order B-${round}`);
      expect(order('h1')).toHaveLength(0);
      expect(order('style').text()).toContain('#654321');
      expect(order('style').text()).not.toContain('#123456');
    }
  });

  it('sanitises again after filling, so a section that joins two places cannot make markup', () => {
    const template = html(`<img alt="{#x}" src="${pngDataUri(2, 2)}"><p title="{/x}&quot; onerror=&quot;alert(1)">t</p>`);
    const { printable } = fill(template, { x: false });
    expect(printable.html).not.toMatch(/onerror/i);
  });

  it('writes numbers, dates and booleans as a DOCX template does, in the template locale', () => {
    const template = html('<p>{total} · {due} · {#vip}VIP{/vip}{^vip}regular{/vip}</p>');
    const prepared = prepareHtmlTemplate(template);
    const variables = prepared.variables.map((variable) =>
      variable.name === 'total'
        ? { ...variable, type: 'number' as const, format: { style: 'currency' as const, currency: 'EUR' } }
        : variable.name === 'due'
          ? { ...variable, type: 'date' as const, format: 'D MMMM YYYY' }
          : variable,
    );
    const printable = fillHtml(prepared.html, variables, { total: 1234.5, due: '2026-03-01', vip: false }, undefined, { locale: 'de-DE' });
    expect(load(printable.html)('p').text()).toBe('1.234,50\u00a0€ · 1. März 2026 · regular');
  });

  it('fails a missing value inside a loop naming the loop and the item', () => {
    const prepared = prepareHtmlTemplate(INVOICE);
    expect(() =>
      fillHtml(prepared.html, prepared.variables, { number: '1', items: [{ description: 'a', qty: '1' }, { description: 'b' }], tags: [], paid: false }),
    ).toThrow(RenderInputError);
  });

  it('places images of rows as data: URIs, nothing to fetch', () => {
    const template = html('<table><tbody>{#rows}<tr><td>{%photo}</td></tr>{/rows}</tbody></table>');
    const prepared = prepareHtmlTemplate(template);
    expect(prepared.variables[0]).toMatchObject({ name: 'rows', type: 'list', field_types: { photo: 'image' } });
    const png = solidPng(4, 4);
    const images = new Map([['https://example.com/p.png', { data: png, extension: 'png' as const, width: 4, height: 4 }]]);
    const printable = fillHtml(
      prepared.html,
      prepared.variables,
      { rows: [{ photo: 'https://example.com/p.png' }, { photo: 'https://example.com/p.png' }] },
      images,
    );
    const srcs = load(printable.html)('img')
      .map((_, img) => load(printable.html)(img).attr('src'))
      .get();
    expect(srcs).toHaveLength(2);
    expect(srcs.every((src) => src.startsWith('data:image/png;base64,'))).toBe(true);
  });

  it('finds the same variables as the equivalent DOCX template (one model)', () => {
    const docx = prepareDocxTemplate(
      buildDocx({ body: paragraph('{customer} {#vip}VIP{/vip}') + table([['{#lines}{sku}', '{qty}{/lines}']]) + paragraph('{%logo}') }),
    );
    const fromHtml = prepareHtmlTemplate(
      html('<p>{customer} {#vip}VIP{/vip}</p><table><tbody>{#lines}<tr><td>{sku}</td><td>{qty}</td></tr>{/lines}</tbody></table><p>{%logo}</p>'),
    );
    expect(fromHtml.variables).toEqual(docx.variables);
  });

  it('lists syntax problems like a DOCX upload', () => {
    const error = (() => {
      try {
        prepareHtmlTemplate(html('<p>{#items}{name}</p><p>{unclosed</p>'));
      } catch (caught) {
        return caught as TemplateError;
      }
    })();
    expect(error).toBeInstanceOf(TemplateError);
    expect(error!.kind).toBe('syntax');
    expect(error!.issues.length).toBeGreaterThan(0);
  });

  it('keeps modern CSS (flex, grid, radius) and drops what would fetch', () => {
    const { prepared } = fill(
      html(
        '<div class="g" style="display: grid; grid-template-columns: 1fr 1fr; background: url(https://x/y.png)">x</div>',
        '<style>@import url(https://x/a.css); .g { display: flex; gap: 4mm; border-radius: 6px; background-image: image-set("https://x/b.png" 1x) }</style>',
      ),
      {},
    );
    expect(prepared.html).toContain('grid-template-columns: 1fr 1fr');
    expect(prepared.html).toContain('gap: 4mm');
    expect(prepared.html).toContain('border-radius: 6px');
    expect(prepared.html).not.toMatch(/url\(|image-set|@import/);
  });

  it('moves a running header out of the page into a header template with page numbers', () => {
    const { $, printable } = fill(
      html(
        '<header data-page><b>ACME</b> page <span data-page-number></span> of <span data-page-count></span></header><p>{body}</p><footer data-page>Confidential</footer>',
      ),
      { body: 'Text' },
    );
    expect($('header, footer').length).toBe(0);
    expect(printable.headerTemplate).toContain('ACME');
    expect(printable.headerTemplate).toMatch(/class="pageNumber"/);
    expect(printable.headerTemplate).toMatch(/class="totalPages"/);
    expect(printable.footerTemplate).toContain('Confidential');
  });

  it('gives the DOCX conversion the sections inside the rows, where LibreOffice keeps them', () => {
    const { docxSource } = prepareHtmlTemplate(INVOICE);
    const $ = load(docxSource);
    expect($('tbody tr td').first().text()).toBe('{#items}{description}');
    expect($('tbody tr td').last().text()).toBe('{qty}{/items}');
  });
});

describe('HTML tag names', () => {
  it('rewrites names with spaces to underscores, in text and attributes, as for DOCX', () => {
    const prepared = prepareHtmlTemplate(html('<p title="{client name}">Bill to: {client name} {# line items}{sku}{/line items}</p>'));
    expect(prepared.correctedTokens).toEqual([
      { from: 'client name', to: 'client_name' },
      { from: 'line items', to: 'line_items' },
    ]);
    expect(prepared.variables.map((variable) => variable.name)).toEqual(['client_name', 'line_items']);
    const printable = fillHtml(prepared.html, prepared.variables, { client_name: 'Ada', line_items: [{ sku: 'X' }] });
    expect(load(printable.html)('p').text()).toBe('Bill to: Ada X');
  });
});

describe('HTML expressions (API §11)', () => {
  it('evaluates an expression tag as a DOCX fill does, and refuses one that does not parse at upload', () => {
    const prepared = prepareHtmlTemplate(html('<table><tbody>{#items}<tr><td>{qty * price}</td></tr>{/items}</tbody></table>'));
    const printable = fillHtml(prepared.html, prepared.variables, { items: [{ qty: 2, price: 3.5 }] });
    expect(load(printable.html)('td').text()).toBe('7');
    expect(() => prepareHtmlTemplate(html('<p>{qty * }</p>'))).toThrow(TemplateError);
  });
});

describe('HTML output limit', () => {
  it('refuses a fill larger than MAX_OUTPUT_BYTES before filling it', () => {
    const prepared = prepareHtmlTemplate(html(`<table><tbody>{#rows}<tr><td>${'x'.repeat(1000)} {v}</td></tr>{/rows}</tbody></table>`));
    const rows = Array.from({ length: 200_000 }, () => ({ v: 'y' }));
    expect(() => fillHtml(prepared.html, prepared.variables, { rows }, undefined, { maxOutputBytes: 1024 * 1024 })).toThrow(
      /larger than the output limit of 1 MiB \(MAX_OUTPUT_BYTES\)/,
    );
  });

  it('counts a section on a member path as often as the fill repeats it', () => {
    const prepared = prepareHtmlTemplate(html(`<p>{#d.a}{#d.a}${'static text '.repeat(40)}{/d.a}{/d.a}</p>`));
    const input = { d: { a: Array.from({ length: 1_000 }, () => ({})) } };
    const started = performance.now();
    expect(() => fillHtml(prepared.html, prepared.variables, input, undefined, { maxOutputBytes: 1024 * 1024 })).toThrow(
      /larger than the output limit of 1 MiB \(MAX_OUTPUT_BYTES\)/,
    );
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('running header margins', () => {
  it("line up with the template's own @page margins (20 mm without them)", () => {
    expect(pageSideMargins('@page { size: A4; margin: 22mm 18mm 20mm }')).toEqual({ left: '18mm', right: '18mm' });
    expect(pageSideMargins('@page { margin: 1in 2cm 1in 3cm } @page { margin-left: 25mm }')).toEqual({ left: '25mm', right: '2cm' });
    expect(pageSideMargins('p { margin: 0 }')).toEqual({ left: '20mm', right: '20mm' });
  });
});

describe('HTML expressions written with operators', () => {
  it('reads &&, > and quotes in a tag as written, in text and attributes', () => {
    const prepared = prepareHtmlTemplate(
      html('<p title="{status == &quot;late&quot; ? &quot;!&quot; : &quot;&quot;}">{#overdue && total > 100}Late: {status}{/}</p>'),
    );
    const printable = fillHtml(prepared.html, prepared.variables, { status: 'late', overdue: true, total: 150 });
    expect(load(printable.html)('p').text()).toBe('Late: late');
    expect(load(printable.html)('p').attr('title')).toBe('!');
  });
});
