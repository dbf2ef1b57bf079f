import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { apiClient, pdfText, pngDataUri, repoRoot, startCanary, startStack, type ApiClient, type ApiResponse, type Canary, type Stack } from '@docgen/testing';
import { docxText } from '../support';

const examples = path.join(repoRoot, 'examples');
const invoiceData = () => JSON.parse(readFileSync(path.join(examples, 'invoice-data.json'), 'utf8')) as Record<string, unknown>;

/** Every way an HTML template could make the printer reach the network or run code (API.md §10). */
function hostileTemplate(url: string): Buffer {
  return Buffer.from(`<!DOCTYPE html><html><head>
    <link rel="stylesheet" href="${url}/link.css">
    <meta http-equiv="refresh" content="0; url=${url}/refresh">
    <base href="${url}/base/">
    <style>@import url("${url}/import.css"); body { background: url("${url}/bg.png") } h1 { background-image: image-set("${url}/set.png" 1x) }
      @font-face { font-family: X; src: url("${url}/font.woff2") }</style>
    <script>fetch("${url}/script")</script>
  </head><body>
    <h1 style="background-image: url('${url}/inline.png')">Hostile {name}</h1>
    <img src="${url}/img.png"><img srcset="${url}/srcset.png 2x" src="relative.png">
    <iframe src="${url}/iframe"></iframe><object data="${url}/object"></object><embed src="${url}/embed">
    <svg><image href="${url}/svg-image.png" width="10" height="10"/></svg>
    <img src="${pngDataUri(2, 2)}" onerror="fetch('${url}/onerror')">
    <p onclick="fetch('${url}/onclick')">{#rows}<span>{cell}</span>{/rows}</p>
  </body></html>`);
}

async function previewWhenDone(api: ApiClient, templateId: string, timeoutMs = 60_000): Promise<ApiResponse> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.call('GET', `/api/v1/templates/${templateId}/preview`);
    if (res.status !== 202) return res;
    if (Date.now() > deadline) throw new Error(`preview of ${templateId} still being prepared`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('HTML templates print like a browser (API.md §10)', () => {
  let stack: Stack;
  let api: ApiClient;
  let canary: Canary;

  beforeAll(async () => {
    canary = await startCanary();
    stack = await startStack({ env: { HTML_PRINTER_PAGES: '2' } });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    await canary.close();
  });

  const generate = async (templateId: string, input: Record<string, unknown>, outputFormat: string) => {
    const res = await api.call('POST', '/api/v1/documents/', { template_id: templateId, input_json: input, output_format: outputFormat });
    expect(res.status).toBe(202);
    const doc = await api.waitForDocument(res.body.id as string);
    expect(doc).toMatchObject({ status: 'ready' });
    return res.body.id as string;
  };

  it('reads a loop around table rows as a list and prints one row per item, in Chromium', async () => {
    const upload = await api.postFile('/api/v1/templates', readFileSync(path.join(examples, 'sample-invoice.html')), 'sample-invoice.html');
    expect(upload.status).toBe(201);
    const items = (upload.body.variables as { name: string; type: string; fields?: string[] }[]).find((variable) => variable.name === 'items');
    expect(items).toMatchObject({ type: 'list', fields: ['description', 'quantity', 'price'] });

    const id = await generate(upload.body.id as string, invoiceData(), 'both');
    const pdf = (await api.call('GET', `/api/v1/documents/${id}/download?format=pdf`)).raw;
    const text = pdfText(pdf);
    expect(text).toContain('Invoice INV-2026-001');
    expect(text).toContain('Bill to: Ada Lovelace');
    expect(text).toMatch(/Analytical engine tuning\s+2\s+450\.00/);
    expect(text).toMatch(/Punch cards\s+500\s+0\.10/);
    expect(text).toContain('Page 1 of 1');
    expect(execFileSync('pdfinfo', ['-'], { input: pdf }).toString()).toMatch(/Producer:\s+Skia\/PDF/);

    // DOCX output still comes from the conversion, with the rows repeated there too.
    const docx = (await api.call('GET', `/api/v1/documents/${id}/download?format=docx`)).raw;
    expect(docxText(docx)).toContain('Analytical engine tuning');
    expect(docxText(docx)).toContain('Punch cards');
  }, 120_000);

  it('repeats the running footer with page numbers and the table header on every page of a long document', async () => {
    const items = Array.from({ length: 90 }, (_, i) => ({ description: `Line item ${i + 1}`, quantity: i + 1, price: '1.00' }));
    const template = await api.uploadTemplate(readFileSync(path.join(examples, 'sample-invoice.html')), 'long.html');
    const id = await generate(template.id, { ...invoiceData(), items }, 'pdf');
    const pages = pdfText((await api.call('GET', `/api/v1/documents/${id}/download`)).raw)
      .split('\f')
      .filter((page) => page.trim());
    expect(pages.length).toBeGreaterThan(1);
    pages.forEach((page, i) => {
      expect(page).toContain(`Page ${i + 1} of ${pages.length}`);
      expect(page).toMatch(/DESCRIPTION\s+QUANTITY\s+PRICE/);
    });
  }, 120_000);

  it('fetches nothing and runs nothing at upload, preview and render', async () => {
    const upload = await api.postFile('/api/v1/templates', hostileTemplate(canary.url), 'hostile.html');
    expect(upload.status).toBe(201);
    const preview = await previewWhenDone(api, upload.body.id as string);
    expect(preview.status).toBe(200);
    const id = await generate(upload.body.id as string, { name: 'ok', rows: [{ cell: 'A' }, { cell: 'B' }] }, 'both');
    const text = pdfText((await api.call('GET', `/api/v1/documents/${id}/download?format=pdf`)).raw);
    expect(text).toContain('Hostile ok');
    expect(text).toContain('AB');
    expect(canary.requests).toEqual([]);
    expect(canary.connections()).toBe(0);
  }, 120_000);

  it('applies the seed rules without the author: 20 mm margins, bordered cells, images within the page', async () => {
    const wide = pngDataUri(3000, 60, [200, 40, 40]);
    const template = await api.uploadTemplate(
      Buffer.from(`<!DOCTYPE html><p>Margin {word}</p><table border="1"><tr><td style="padding: 10px">cell</td></tr></table><img src="${wide}">`),
      'seed.html',
    );
    const id = await generate(template.id, { word: 'probe' }, 'pdf');
    const pdf = (await api.call('GET', `/api/v1/documents/${id}/download`)).raw;
    // 20 mm = 56.7 pt from the left and top edges of an A4 page.
    const bbox = execFileSync('pdftotext', ['-bbox', '-', '-'], { input: pdf }).toString();
    const word = /<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>Margin<\/word>/.exec(bbox)!;
    expect(Number(word[1])).toBeCloseTo(56.7, 0);
    expect(Number(word[2])).toBeGreaterThan(56);
    expect(execFileSync('pdfinfo', ['-'], { input: pdf }).toString()).toMatch(/Page size:.*\(A4\)/);
    // At 72 dpi one pixel is one point: the red image spans the text width at most, the cell has a dark border.
    const png = PNG.sync.read(execFileSync('pdftoppm', ['-r', '72', '-png', '-f', '1', '-l', '1', '-'], { input: pdf }));
    const at = (x: number, y: number) => png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3);
    const redColumns: number[] = [];
    const darkRows = new Set<number>();
    for (let y = 0; y < png.height; y++) {
      for (let x = 0; x < png.width; x++) {
        const [r, g, b] = at(x, y);
        if (r! > 150 && g! < 90 && b! < 90) redColumns.push(x);
        else if (r! < 80 && g! < 80 && b! < 80 && x < 120) darkRows.add(y);
      }
    }
    expect(Math.min(...redColumns)).toBeGreaterThanOrEqual(56);
    expect(Math.max(...redColumns)).toBeLessThanOrEqual(png.width - 56);
    expect(darkRows.size).toBeGreaterThan(20); // the cell's left and right edges, plus the text
  }, 60_000);

  it('warns at upload about text no installed font can print, and only then', async () => {
    const covered = await api.postFile('/api/v1/templates', Buffer.from('<!DOCTYPE html><p>Ελληνικά العربية 日本語 {name}</p>'), 'scripts.html');
    expect(covered.status).toBe(201);
    expect(covered.body.warnings).toBeUndefined();
    const uncovered = await api.postFile('/api/v1/templates', Buffer.from('<!DOCTYPE html><p>Dives Akuru \u{11900}\u{11901} {name}</p>'), 'boxes.html');
    expect(uncovered.status).toBe(201);
    expect(uncovered.body.warnings).toEqual([
      expect.stringMatching(/^The template uses Dives Akuru characters .* U\+11900, U\+11901\) that no font installed on the render workers can print/),
    ]);
  }, 60_000);

  it('inserts values as text: markup in a value is printed, not interpreted', async () => {
    const template = await api.uploadTemplate(Buffer.from('<!DOCTYPE html><p>Note: {note}</p>'), 'note.html');
    const id = await generate(template.id, { note: `<img src="${canary.url}/value.png"><b>not bold</b>` }, 'pdf');
    const text = pdfText((await api.call('GET', `/api/v1/documents/${id}/download`)).raw);
    expect(text).toContain('<b>not bold</b>');
    expect(canary.requests).toEqual([]);
  }, 60_000);
});

describe('a Chromium that dies mid-print', () => {
  let stack: Stack;
  let api: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ workers: 0 });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  }, 120_000);
  afterAll(() => stack.close());

  it('is replaced, and the document is retried to ready', async () => {
    const worker = await stack.start('render-worker', { LOG_LEVEL: 'debug' });
    await worker.waitForLog((line) => line.msg === 'html printer started');
    const template = await api.uploadTemplate(readFileSync(path.join(examples, 'sample-invoice.html')), 'crash.html');
    const items = Array.from({ length: 3000 }, (_, i) => ({ description: `row ${i + 1}`, quantity: 1, price: '1.00' }));
    const res = await api.call('POST', '/api/v1/documents/', { template_id: template.id, input_json: { ...invoiceData(), items }, output_format: 'pdf' });
    expect(res.status).toBe(202);
    await worker.waitForLog((line) => line.msg === 'printing started' && line.documentId === res.body.id);
    const browser = execFileSync('pgrep', ['-P', String(worker.process.pid), 'chromium'])
      .toString()
      .trim()
      .split('\n')[0]!;
    process.kill(Number(browser), 'SIGKILL');

    expect(await api.waitForDocument(res.body.id as string, ['ready', 'failed'], 90_000)).toMatchObject({ status: 'ready', files: ['pdf'] });
    expect((await stack.database.db.document.findUniqueOrThrow({ where: { id: res.body.id as string } })).renderAttempts).toBe(2);
    expect(worker.logs.some((line) => line.msg === 'html printer exited' && line.expected === false)).toBe(true);
    expect(worker.logs.filter((line) => line.msg === 'html printer started').length).toBeGreaterThanOrEqual(2);
    expect(pdfText((await api.call('GET', `/api/v1/documents/${res.body.id as string}/download`)).raw)).toContain('row 3000');
    expect(await (await fetch(`${worker.url}/metrics`)).text()).toMatch(/docgen_html_printer_up(\{[^}]*\})? 1/);
  }, 120_000);
});
