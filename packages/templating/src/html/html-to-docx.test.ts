import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { convertOnce } from '@docgen/converter';
import PizZip from 'pizzip';
import { TemplateError } from '../template-error';
import { htmlToDocx } from './html-to-docx';
import { inspectPdf, type PdfLayout } from '../test-support/pdf-inspect';
import { pngDataUri } from '@docgen/testing';

const MARGIN_PT = (20 / 25.4) * 72; // 56.7
const TEXT_WIDTH_PT = (170 / 25.4) * 72; // 481.9
const SCRIPTS = { cyrillic: 'Привет', greek: 'Ελληνικά', arabic: 'مرحبا', hebrew: 'שלום', cjk: '漢字テスト', devanagari: 'हिन्दी' };

describe('htmlToDocx with LibreOffice', () => {
  let server: Server;
  const requests: string[] = [];
  let docx: Buffer;
  let documentXml: string;
  let relationships: string;
  let pdf: PdfLayout;

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const remote = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const html = `<!doctype html><html><head><title>Invoice</title>
      <link rel="stylesheet" href="${remote}/s.css">
      <style>@import url(${remote}/import.css); body { background: url(${remote}/bg.png) }</style>
      <script src="${remote}/a.js"></script></head>
      <body background="${remote}/body.png">
      <p>Invoice for {client_name}</p>
      <h1>Invoice</h1>
      <p style="background: url(${remote}/p.png)">${Object.values(SCRIPTS).join(' ')}</p>
      <table border="1"><tr><th>Name</th><th>Price</th></tr><tr><td>{#items}{name}</td><td>{price}{/items}</td></tr></table>
      <p><img src="${pngDataUri(1600, 400)}" alt="big"></p>
      <p><img src="${pngDataUri(100, 50, [40, 40, 200])}" alt="small"></p>
      <p><img src="${remote}/x.png" alt="remote"></p>
      <iframe src="${remote}/frame.html"></iframe>
      <p><a href="https://example.com/terms">Terms</a></p>
      </body></html>`;

    docx = await htmlToDocx(Buffer.from(html, 'utf8'));
    const zip = new PizZip(docx);
    documentXml = zip.file('word/document.xml')!.asText();
    relationships = Object.keys(zip.files)
      .filter((name) => name.endsWith('.rels'))
      .map((name) => zip.file(name)!.asText())
      .join('\n');
    pdf = await inspectPdf(await convertOnce(docx, { from: 'docx', to: 'pdf' }));
  }, 120_000);

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('fetches nothing from the network, converting to DOCX nor to PDF', () => {
    expect(requests).toEqual([]);
    const external = relationships.match(/<Relationship [^>]*TargetMode="External"[^>]*>/g) ?? [];
    expect(external).toHaveLength(1);
    expect(external[0]).toMatch(
      /relationships\/hyperlink".*Target="https:\/\/example.com\/terms"|Target="https:\/\/example.com\/terms".*relationships\/hyperlink"/,
    );
    expect(documentXml).not.toMatch(/INCLUDEPICTURE|INCLUDETEXT/);
  });

  it('keeps the docxtemplater tags and every script as text', () => {
    const paragraphs = [...documentXml.matchAll(/<w:p[ >][\s\S]*?<\/w:p>/g)].map((p) =>
      [...p[0].matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((t) => t[1]).join(''),
    );
    expect(paragraphs).toEqual(expect.arrayContaining(['Invoice for {client_name}', '{#items}{name}', '{price}{/items}']));
    const text = paragraphs.join('\n');
    for (const sample of Object.values(SCRIPTS)) expect(text).toContain(sample);
    for (const sample of [SCRIPTS.cyrillic, SCRIPTS.greek, SCRIPTS.cjk, SCRIPTS.devanagari]) expect(pdf.text).toContain(sample);
  });

  it('lays the page out with 20 mm margins', () => {
    const left = Math.min(...pdf.words.map((w) => w.xMin));
    const top = Math.min(...pdf.words.map((w) => w.yMin));
    expect(Math.abs(left - MARGIN_PT)).toBeLessThanOrEqual(3);
    // The first line's box starts at the margin; allow for the line's leading.
    expect(top).toBeGreaterThanOrEqual(MARGIN_PT - 3);
    expect(top).toBeLessThanOrEqual(MARGIN_PT + 6);
  });

  it('gives a bordered table single black cell borders', () => {
    expect(documentXml).toMatch(/<w:tcBorders><w:top w:val="single"[^>]*w:color="000000"/);
    expect(documentXml).not.toMatch(/w:val="double"/);
    // The PDF draws each border as a stroked black line: a 2×2 table has 3 horizontal and 3
    // vertical grid lines (the image and text are not stroked paths).
    const black = pdf.lines.filter((line) => line.stroke === 'rgb(0%,0%,0%)');
    const rows = new Set(black.filter((l) => Math.abs(l.y1 - l.y2) < 0.5).map((l) => Math.round(l.y1)));
    const columns = new Set(black.filter((l) => Math.abs(l.x1 - l.x2) < 0.5).map((l) => Math.round(l.x1)));
    expect(rows.size).toBe(3);
    expect(columns.size).toBe(3);
    // Nothing else (LibreOffice's grey double lines) is drawn inside the table; the link's
    // underline below it is a stroked line too.
    const [top, bottom] = [Math.min(...black.map((l) => l.y1)), Math.max(...black.map((l) => l.y1))];
    expect(pdf.lines.filter((l) => l.stroke !== 'rgb(0%,0%,0%)' && l.y1 >= top - 1 && l.y1 <= bottom + 1)).toEqual([]);
  });

  it('scales an image wider than the page to the text width and keeps small images at their size', () => {
    const big = pdf.images.find((image) => image.pixelWidth === 1600)!;
    const small = pdf.images.find((image) => image.pixelWidth === 100)!;
    expect(big.width).toBeLessThanOrEqual(TEXT_WIDTH_PT + 1);
    expect(big.width).toBeGreaterThan(TEXT_WIDTH_PT - 3);
    expect(big.height / big.width).toBeCloseTo(400 / 1600, 2);
    expect(Math.abs(small.width - 75)).toBeLessThanOrEqual(1);
    expect(pdf.images).toHaveLength(2);
  });
});

describe('htmlToDocx refuses what is not an HTML template', () => {
  it.each([
    ['an empty file', Buffer.alloc(0), /empty/],
    ['binary junk', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff, 0x3c, 0x70, 0x3e]), /binary/],
    ['text that is not UTF-8', Buffer.from('<p>caf\xe9</p>', 'latin1'), /UTF-8/],
    ['UTF-16 text', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>hi</p>', 'utf16le')]), /UTF-16/],
    ['plain text', Buffer.from('Dear {client_name}, thank you.'), /HTML markup/],
  ])('%s', async (_name, file, message) => {
    const error = await htmlToDocx(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TemplateError);
    expect(error).toMatchObject({ kind: 'invalid', message: expect.stringMatching(message) });
  });
});
