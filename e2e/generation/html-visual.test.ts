import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { fillHtml, prepareHtmlTemplate } from '@docgen/templating';
import { apiClient, repoRoot, startStack, type ApiClient, type Stack } from '@docgen/testing';

const FIXTURE = readFileSync(path.join(repoRoot, 'e2e', 'fixtures', 'modern-layout.html'));
const INPUT = {
  title: 'Quarterly report',
  orders: '1,204',
  revenue: '€ 48,210',
  customers: '311',
  rows: Array.from({ length: 70 }, (_, i) => ({
    n: String(i + 1),
    product: `Product number ${i + 1}`,
    units: String((i * 7) % 50),
    amount: `${(i * 13.5).toFixed(2)}`,
  })),
};

/** The pages of a PDF as PNGs (pdftoppm, 60 dpi). */
function pages(pdf: Buffer, dir: string, name: string): PNG[] {
  writeFileSync(path.join(dir, `${name}.pdf`), pdf);
  execFileSync('pdftoppm', ['-r', '60', '-png', path.join(dir, `${name}.pdf`), path.join(dir, name)]);
  return readdirSync(dir)
    .filter((file) => file.startsWith(`${name}-`) && file.endsWith('.png'))
    .sort()
    .map((file) => PNG.sync.read(readFileSync(path.join(dir, file))));
}

describe("an HTML template's PDF looks like Chromium's own print of the same HTML", () => {
  let stack: Stack;
  let api: ApiClient;
  let dir: string;

  beforeAll(async () => {
    stack = await startStack();
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    dir = mkdtempSync(path.join(tmpdir(), 'docgen-visual-'));
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('differs in at most 2 % of the pixels of any page (flex, grid, border-radius, a long table)', async () => {
    const template = await api.uploadTemplate(FIXTURE, 'modern-layout.html');
    const created = await api.call('POST', '/api/v1/documents', { template_id: template.id, input_json: INPUT, output_format: 'pdf' });
    expect(await api.waitForDocument(created.body.id as string)).toMatchObject({ status: 'ready' });
    const service = (await api.call('GET', `/api/v1/documents/${created.body.id as string}/download`)).raw;

    // The same filled HTML, printed by the full browser's command line on its own (never CHROMIUM_PATH,
    // which may name the headless shell the service prints with).
    const prepared = prepareHtmlTemplate(FIXTURE);
    const { html } = fillHtml(prepared.html, prepared.variables, INPUT);
    writeFileSync(path.join(dir, 'filled.html'), html);
    execFileSync(
      '/usr/bin/chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-pdf-header-footer',
        `--print-to-pdf=${path.join(dir, 'chromium.pdf')}`,
        `file://${path.join(dir, 'filled.html')}`,
      ],
      { stdio: 'ignore', timeout: 60_000 },
    );
    const ours = pages(service, dir, 'service');
    const theirs = pages(readFileSync(path.join(dir, 'chromium.pdf')), dir, 'chromium');
    expect(ours.length).toBeGreaterThan(1); // the long table breaks across pages
    expect(ours.length).toBe(theirs.length);
    ours.forEach((page, i) => {
      const other = theirs[i]!;
      expect([page.width, page.height]).toEqual([other.width, other.height]);
      const changed = pixelmatch(page.data, other.data, null, page.width, page.height, { threshold: 0.1 });
      expect(changed / (page.width * page.height)).toBeLessThanOrEqual(0.02);
    });
  }, 120_000);
});
