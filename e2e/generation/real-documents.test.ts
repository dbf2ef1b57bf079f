import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiClient, buildDocx, paragraph, pngDataUri, solidPng, startStack, table, pdfText, type ApiClient, type Stack } from '@docgen/testing';
import { pdfFonts } from '../support';

/** Runs a poppler tool on the PDF written to a temporary file. */
function poppler(tool: string, pdf: Buffer, ...args: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'docgen-pdf-'));
  try {
    writeFileSync(path.join(dir, 'doc.pdf'), pdf);
    return execFileSync(tool, [...args, path.join(dir, 'doc.pdf')]).toString();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
/** One line per image drawn on a page. */
const pdfImages = (pdf: Buffer) =>
  poppler('pdfimages', pdf, '-list')
    .split('\n')
    .slice(2)
    .filter((line) => line.trim() !== '');
const pdfPages = (pdf: Buffer) => Number(/Pages:\s+(\d+)/.exec(poppler('pdfinfo', pdf))![1]);
const pageBreak = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';

describe('templates that real documents need (gateway + render worker processes, LibreOffice)', () => {
  let stack: Stack;
  let api: ApiClient;
  let images: Server;
  let imageBase: string;
  const hits = new Map<string, number>();

  beforeAll(async () => {
    images = createServer((req, res) => {
      hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
      const colour = /^\/photo-(\d+)\.png$/.exec(req.url!);
      if (!colour) return void res.writeHead(404).end('not here');
      res.writeHead(200, { 'Content-Type': 'image/png' }).end(solidPng(400, 300, [Number(colour[1]), 90, 160]));
    });
    images.listen(0, '127.0.0.1');
    await once(images, 'listening');
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    stack = await startStack({ env: { CONVERTER_POOL_SIZE: '1', OUTBOUND_ALLOW_PRIVATE: 'true', MAX_IMAGES_PER_DOCUMENT: '12' } });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    images?.close();
  });

  const upload = async (body: string, fields: Record<string, string> = {}) => {
    const res = await api.postFile('/api/v1/templates', buildDocx({ body }), 'real.docx', fields);
    expect(res.status).toBe(201);
    return res.body as { id: string; locale: string; variables: Record<string, unknown>[] };
  };
  const patchVariables = async (id: string, variables: Record<string, unknown>[]) => {
    const res = await api.call('PATCH', `/api/v1/templates/${id}/variables`, { variables });
    expect(res.status).toBe(200);
    return res.body;
  };
  const render = async (templateId: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const res = await api.call('POST', '/api/v1/documents', { template_id: templateId, input_json: input, output_format: 'pdf', ...extra });
    expect(res.status).toBe(202);
    const doc = await api.waitForDocument(res.body.id as string);
    if (doc.status !== 'ready') return { doc, pdf: Buffer.alloc(0) };
    return { doc, pdf: (await api.call('GET', `/api/v1/documents/${doc.id}/download`)).raw };
  };

  it('renders a product table with a photo per row, each source fetched once', async () => {
    const template = await upload(paragraph('Products') + table([['{#items}{name}', '{%photo}{/items}']]));
    expect(template.variables).toEqual([
      { name: 'items', type: 'list', required: true, fields: ['name', 'photo'], field_types: { name: 'text', photo: 'image' } },
    ]);
    const items = [10, 60, 110, 10].map((colour, i) => ({ name: `Product ${i + 1}`, photo: `${imageBase}/photo-${colour}.png` }));
    const { doc, pdf } = await render(template.id, { items });
    expect(doc).toMatchObject({ status: 'ready' });
    expect(pdfImages(pdf)).toHaveLength(4);
    expect(pdfText(pdf)).toMatch(/Product 1[\s\S]*Product 4/);
    expect(hits.get('/photo-10.png')).toBe(1);
  });

  it('renders images in nested loops from data: URIs', async () => {
    const template = await upload(paragraph('{#orders}Order {id}') + table([['{#lines}{sku}', '{%icon}{/lines}']]) + paragraph('{/orders}'));
    const icon = (r: number) => pngDataUri(60, 60, [r, 20, 20]);
    const orders = [
      {
        id: 'A',
        lines: [
          { sku: 'a1', icon: icon(1) },
          { sku: 'a2', icon: icon(2) },
        ],
      },
      { id: 'B', lines: [{ sku: 'b1', icon: icon(3) }] },
    ];
    const { doc, pdf } = await render(template.id, { orders });
    expect(doc).toMatchObject({ status: 'ready' });
    expect(pdfImages(pdf)).toHaveLength(3);
    expect(pdfText(pdf)).toMatch(/Order A[\s\S]*a2[\s\S]*Order B[\s\S]*b1/);
  });

  it('fails a document whose row image cannot be fetched, naming the row; and past MAX_IMAGES_PER_DOCUMENT', async () => {
    const template = await upload(table([['{#items}{name}', '{%photo}{/items}']]));
    const items = [1, 2, 3].map((i) => ({ name: `P${i}`, photo: i === 3 ? `${imageBase}/missing.png` : `${imageBase}/photo-${i}.png` }));
    const { doc } = await render(template.id, { items });
    expect(doc).toMatchObject({
      status: 'failed',
      error_message: `Image "photo" in item 3 of "items" could not be fetched from ${imageBase}/missing.png: HTTP 404`,
    });

    const many = Array.from({ length: 13 }, (_, i) => ({ name: `P${i}`, photo: pngDataUri(4, 4) }));
    const { doc: tooMany } = await render(template.id, { items: many });
    expect(tooMany).toMatchObject({
      status: 'failed',
      error_message: 'The document places 13 images; at most 12 are allowed per document (MAX_IMAGES_PER_DOCUMENT)',
    });
  });

  it('shows paid and unpaid sections from a boolean', async () => {
    const template = await upload(
      paragraph('Invoice {number}') + paragraph('{#paid}Thank you, this invoice is paid.{/paid}') + paragraph('{^paid}Please pay within 30 days.{/paid}'),
    );
    expect(template.variables).toContainEqual({ name: 'paid', type: 'boolean', required: true });
    const paid = pdfText((await render(template.id, { number: 7, paid: true })).pdf);
    expect(paid).toContain('this invoice is paid');
    expect(paid).not.toContain('Please pay');
    const unpaid = pdfText((await render(template.id, { number: 8, paid: false })).pdf);
    expect(unpaid).toContain('Please pay within 30 days.');
    expect(unpaid).not.toContain('is paid');
  });

  it.each([
    ['de-DE', 'Summe: 1.234,50 €', 'Fällig: 24. Dezember 2026', 'Stift 3,50 €'],
    ['fr-FR', 'Summe: 1 234,50 €', 'Fällig: 24 décembre 2026', 'Stift 3,50 €'],
    ['ja-JP', 'Summe: ￥1,235', 'Fällig: 2026年12月24日', 'Stift ￥4'],
  ])('writes amounts and dates in %s (read back with pdftotext)', async (locale, total, due, row) => {
    const currency = locale === 'ja-JP' ? 'JPY' : 'EUR';
    const template = await upload(paragraph('Summe: {total}') + paragraph('Fällig: {due}') + table([['{#items}{name}', '{price}{/items}']]), {
      locale: 'en-US',
    });
    const patched = await api.call('PATCH', `/api/v1/templates/${template.id}`, { locale });
    expect(patched.body).toMatchObject({ locale });
    await patchVariables(template.id, [
      { name: 'total', type: 'number', format: { style: 'currency', currency } },
      { name: 'due', type: 'date', format: locale === 'ja-JP' ? 'YYYY年M月D日' : 'D MMMM YYYY' },
      { name: 'items.price', type: 'number', format: { style: 'currency', currency } },
    ]);
    const { doc, pdf } = await render(template.id, { total: 1234.5, due: '2026-12-24', items: [{ name: 'Stift', price: '3.5' }] });
    expect(doc).toMatchObject({ status: 'ready' });
    const text = pdfText(pdf).replace(/[\u00a0\u202f]/g, ' ');
    expect(text).toContain(total);
    // -layout spaces out runs set in a fallback font (the CJK glyphs): compare without spaces.
    const squashed = (value: string) => value.replace(/\s+/g, '');
    expect(squashed(text)).toContain(squashed(due));
    expect(squashed(text)).toContain(squashed(row));
    if (locale === 'de-DE') expect(text).toContain(due);
    const bad = await render(template.id, { total: 'lots', due: '2026-12-24', items: [] });
    expect(bad.doc).toMatchObject({ status: 'failed', error_message: 'Token "total" must be a number (or a numeric string like "1234.50")' });
  });

  it('takes the locale at upload and refuses one ICU cannot format', async () => {
    expect((await upload(paragraph('{x}'), { locale: 'de-de' })).locale).toBe('de-DE');
    const res = await api.postFile('/api/v1/templates', buildDocx({ body: paragraph('{x}') }), 'x.docx', { locale: 'not a locale' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'locale' })]);
  });

  it('renders a three-element page loop as exactly three pages', async () => {
    const template = await upload(paragraph('{#pages}') + paragraph('Certificate for {name}') + pageBreak + paragraph('{/pages}'));
    const { doc, pdf } = await render(template.id, { pages: [{ name: 'Ada' }, { name: 'Grace' }, { name: 'Edsger' }] });
    expect(doc).toMatchObject({ status: 'ready' });
    expect(pdfPages(pdf)).toBe(3);
  });

  it.each([
    ['PDF/A-2b', '2'],
    ['PDF/A-3b', '3'],
  ])('writes %s: conformance in the XMP metadata, every font embedded', async (standard, part) => {
    const template = await upload(paragraph('Archived for {name}'));
    const { doc, pdf } = await render(template.id, { name: 'Ada' }, { pdf_standard: standard });
    expect(doc).toMatchObject({ status: 'ready', pdf_standard: standard });
    const xmp = pdf.toString('latin1');
    expect(xmp).toMatch(new RegExp(`pdfaid:part(="|>)${part}`));
    expect(xmp).toMatch(/pdfaid:conformance(="|>)B/);
    const fonts = pdfFonts(pdf)
      .split('\n')
      .slice(2)
      .filter((line) => line.trim() !== '');
    expect(fonts.length).toBeGreaterThan(0);
    for (const font of fonts) expect(font).toMatch(/\byes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/);
    expect(pdfText(pdf)).toContain('Archived for Ada');
    // A plain PDF does not claim conformance.
    const plain = await render(template.id, { name: 'Ada' });
    expect(plain.pdf.toString('latin1')).not.toContain('pdfaid:part');
  });

  it('refuses pdf_standard for a DOCX-only document', async () => {
    const template = await upload(paragraph('{name}'));
    const res = await api.call('POST', '/api/v1/documents', {
      template_id: template.id,
      input_json: { name: 'x' },
      output_format: 'docx',
      pdf_standard: 'PDF/A-2b',
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ path: 'pdf_standard', message: 'applies to PDF output; use output_format "pdf" or "both"' }]);
  });
});
