import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import PizZip from 'pizzip';
import { convertOnce } from '@docgen/converter';
import { TemplateError } from '../template-error';
import { makePng } from '../test-support/png';
import { htmlToDocx } from './html-to-docx';
import { rewriteHtml } from './rewrite-html';

const MM = 72 / 25.4;
const dataUri = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;

/** Everything pdftocairo draws, as SVG: images with their placement, strokes with their coordinates. */
const svgOf = (pdf: Buffer) => execFileSync('pdftocairo', ['-svg', '-', '-'], { input: pdf }).toString();
const wordsOf = (pdf: Buffer) =>
  [...execFileSync('pdftotext', ['-bbox', '-', '-'], { input: pdf }).toString().matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="[\d.]+">([^<]*)<\/word>/g)].map(
    ([, x, y, text]) => ({ x: Number(x), y: Number(y), text: text! }),
  );

describe('htmlToDocx (real LibreOffice)', () => {
  let receiver: Server;
  const requests: string[] = [];
  let docx: Buffer;
  let pdf: Buffer;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.end('x');
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const remote = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const html = `<!doctype html><html><head><title>Invoice</title>
      <link rel="stylesheet" href="${remote}/style.css">
      <style>@import url("${remote}/import.css"); body { background: url(${remote}/bg.png); }</style>
      <script src="${remote}/app.js"></script></head>
      <body><h1>Invoice for {client_name}</h1>
      <p style="background-image: url('${remote}/inline.png')">Привет Γειά مرحبا שלום 你好 नमस्ते</p>
      <table border="1"><tr><th>Item</th><th>Price</th></tr><tr><td>{#items}{name}</td><td>{price}{/items}</td></tr></table>
      <p><img src="${dataUri(makePng(1600, 400))}"></p>
      <p><img src="${dataUri(makePng(100, 50))}"></p>
      <p><img src="${remote}/remote.png"><iframe src="${remote}/frame"></iframe><object data="${remote}/obj"></object></p>
      </body></html>`;
    docx = await htmlToDocx(Buffer.from(html));
    pdf = await convertOnce(docx, { from: 'docx', to: 'pdf' });
  }, 120_000);
  afterAll(() => receiver.close());

  it('fetches nothing: no request reached the server the HTML points at', () => {
    expect(requests).toEqual([]);
    const rels = new PizZip(docx).file('word/_rels/document.xml.rels')!.asText();
    expect(rels).not.toContain('TargetMode="External"');
  });

  it('keeps the tags and non-Latin text as text of the DOCX', () => {
    const text = new PizZip(docx).file('word/document.xml')!.asText().replace(/<[^>]+>/g, '');
    expect(text).toContain('Invoice for {client_name}');
    expect(text).toContain('{#items}{name}');
    expect(text).toContain('{price}{/items}');
    expect(text).toContain('Привет Γειά مرحبا שלום 你好 नमस्ते');
  });

  it('lays the PDF out with 20 mm margins', () => {
    const words = wordsOf(pdf);
    const left = Math.min(...words.map((w) => w.x));
    expect(left).toBeGreaterThan(20 * MM - 1);
    expect(left).toBeLessThan(20 * MM + 3);
    const top = Math.min(...words.map((w) => w.y));
    expect(top).toBeGreaterThan(20 * MM - 1);
    expect(top).toBeLessThan(20 * MM + 20);
  });

  it('draws the bordered table with single visible lines', () => {
    const strokes = [...svgOf(pdf).matchAll(/stroke:rgb\(0%,0%,0%\)[^"]*" d="M ([\d.]+) ([\d.]+) L ([\d.]+) ([\d.]+) "/g)].map((m) => m.slice(1).map(Number));
    const horizontal = strokes.filter(([, y1, , y2]) => Math.abs(y1! - y2!) < 0.01).map(([, y]) => y!);
    const vertical = strokes.filter(([x1, , x2]) => Math.abs(x1! - x2!) < 0.01);
    // Two rows: three horizontal rules; two columns: three vertical rules. A double border would double them.
    expect(horizontal).toHaveLength(3);
    expect(vertical).toHaveLength(3);
    const gaps = horizontal.sort((a, b) => a - b).slice(1).map((y, i) => y - horizontal[i]!);
    expect(Math.min(...gaps)).toBeGreaterThan(5);
  });

  it('scales an image wider than the page to the text width and keeps smaller ones as they are', () => {
    const placed = [...svgOf(pdf).matchAll(/<image id="(\w+)" width="(\d+)" height="(\d+)"/g)].map(([, id, w, h]) => ({ id, w: Number(w), h: Number(h) }));
    const widthOnPage = (image: { id?: string; w: number }) => {
      const scale = new RegExp(`xlink:href="#${image.id}" transform="matrix\\(([\\d.]+),`).exec(svgOf(pdf));
      return image.w * Number(scale![1]);
    };
    const big = placed.find((image) => image.w === 1600)!;
    const small = placed.find((image) => image.w === 100)!;
    expect(widthOnPage(big)).toBeLessThanOrEqual(170 * MM + 1);
    expect(widthOnPage(big)).toBeGreaterThan(170 * MM - 3);
    expect(widthOnPage(small)).toBeCloseTo(75, 0);
    expect(placed).toHaveLength(2);
  });
});

describe('rewriteHtml', () => {
  it('removes everything that would fetch, keeps data: images', () => {
    const html = rewriteHtml(
      '<html><head><link rel="stylesheet" href="http://x/a.css"><base href="http://x/"><meta http-equiv="refresh" content="0;url=http://x"></head>' +
        '<body style="background:url(http://x/b.png)"><img src="https://x/c.png"><img srcset="http://x/d.png 2x" src="data:image/png;base64,' +
        makePng(10, 10).toString('base64') +
        '"><svg><image href="http://x/e.png"/></svg><video src="http://x/f.mp4"></video></body></html>',
    );
    expect(html).not.toMatch(/http:\/\/x|https:\/\/x/);
    expect(html).toContain('width="10"');
  });

  it('gives bordered tables explicit single borders and leaves borderless ones alone', () => {
    const html = rewriteHtml('<table border="2"><tr><td>a</td></tr></table><table><tr><td>b</td></tr></table>');
    expect(html).toContain('border: 2px solid #000000');
    expect(html).toContain('border-collapse: collapse');
    expect(html.match(/solid/g)).toHaveLength(1);
  });
});

describe('htmlToDocx refuses what is not HTML', () => {
  it.each([
    ['an empty file', Buffer.alloc(0), /empty/],
    ['binary junk', Buffer.from([0x00, 0xff, 0x13, 0x37]), /binary/],
    ['text that is not UTF-8', Buffer.from([0x3c, 0x70, 0x3e, 0xe9, 0x3c]), /not UTF-8/],
    ['plain text', Buffer.from('just some words'), /no HTML markup/],
  ])('refuses %s', async (_case, file, message) => {
    const attempt = htmlToDocx(file);
    await expect(attempt).rejects.toBeInstanceOf(TemplateError);
    await expect(attempt).rejects.toThrow(message);
  });
});
