import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import { z } from 'zod';
import { loadConfig } from '@docgen/config';
import { createStorage, renderingBaselinePrefix, storageEnv, templateFileKey, type FileStorage } from '@docgen/storage';
import {
  apiClient,
  buildDocx,
  paragraph,
  pngDataUri,
  repoRoot,
  startService,
  startStack,
  type ApiClient,
  type RunningService,
  type SeededOrganization,
  type Stack,
} from '@docgen/testing';

const exec = promisify(execFile);

interface Line {
  template_id: string;
  version: number;
  changed_ratio: number | null;
  diff: string | null;
  is_uat: boolean;
  organization_id: string;
  baseline: string;
  baseline_input?: string;
  stored?: boolean;
  pages?: number;
  page_ratios?: number[];
  error?: string;
}

/**
 * `templates check-rendering` against a real stack: templates uploaded through the gateway,
 * a document rendered by the worker, baselines in the stack's storage (local, or S3 with
 * TEST_STORAGE_DRIVER=s3), and the CLI rendering with real LibreOffice and Chromium.
 */
describe('docgen templates check-rendering', () => {
  let stack: Stack;
  let worker: RunningService | undefined;
  let storage: FileStorage;
  let outDir: string;
  let orgA: SeededOrganization;
  let orgB: SeededOrganization;
  let apiA: ApiClient;
  let apiB: ApiClient;
  let docxA: string;
  let htmlA: string;
  let docxB: string;

  async function docgen(...args: string[]): Promise<{ code: number; lines: Line[]; stderr: string }> {
    const env = { ...process.env, ...stack.env };
    try {
      const { stdout, stderr } = await exec('npm', ['run', '-s', 'docgen', '--', 'templates', 'check-rendering', '--out', outDir, ...args], {
        cwd: repoRoot,
        env,
      });
      return { code: 0, lines: parse(stdout), stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, lines: parse(failed.stdout), stderr: failed.stderr };
    }
  }
  const parse = (stdout: string) =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line);
  const lineOf = (lines: Line[], templateId: string) => lines.find((line) => line.template_id === templateId)!;

  const invoice = buildDocx({
    body: [
      paragraph('Invoice for {customer_name}'),
      paragraph('Due on {due_date}'),
      paragraph('{#lines}'),
      paragraph('{description}: {amount}'),
      paragraph('{/lines}'),
      paragraph('{%logo}'),
    ].join(''),
  });

  beforeAll(async () => {
    stack = await startStack({ workers: 0 });
    // The worker renders the document whose input becomes a baseline input; LibreOffice may start slowly on a busy machine.
    worker = await startService('render-worker', stack.env, { startTimeoutMs: 90_000 });
    storage = createStorage(loadConfig(z.object(storageEnv), stack.env));
    outDir = await mkdtemp(path.join(tmpdir(), 'docgen-drift-test-'));
    orgA = await stack.organization();
    orgB = await stack.organization();
    apiA = apiClient(stack.gateways[0]!.url, orgA.apiKey);
    apiB = apiClient(stack.gateways[0]!.url, orgB.apiKey);
    docxA = (await apiA.uploadTemplate(invoice, 'invoice.docx')).id;
    const html = await apiA.postFile('/api/v1/templates', readFileSync(path.join(repoRoot, 'examples', 'sample-invoice.html')), 'invoice.html', {
      is_uat: 'true',
    });
    expect(html.status).toBe(201);
    htmlA = html.body.id as string;
    docxB = (await apiB.uploadTemplate(buildDocx({ body: paragraph('Letter to {recipient}') }), 'letter.docx')).id;
    // A ready document of docxA: its input is that template's baseline input.
    const created = await apiA.call('POST', '/api/v1/documents/', {
      template_id: docxA,
      output_format: 'pdf',
      input_json: {
        customer_name: 'Ada Lovelace',
        due_date: '2026-12-01',
        lines: [{ description: 'Engine tuning', amount: '450.00' }],
        logo: pngDataUri(60, 30, [20, 90, 200]),
      },
    });
    expect(created.status).toBe(202);
    expect(await apiA.waitForDocument(created.body.id as string)).toMatchObject({ status: 'ready' });
  }, 180_000);

  afterAll(async () => {
    await worker?.stop();
    await stack?.close();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('reports versions without a baseline and passes; --update stores them; a second run finds nothing changed', async () => {
    const first = await docgen();
    expect(first.code).toBe(0);
    expect(first.lines).toHaveLength(3);
    expect(lineOf(first.lines, docxA)).toMatchObject({ version: 1, changed_ratio: null, diff: null, baseline: 'missing' });
    expect(first.stderr).toContain('3 template version(s) have no baseline');

    const update = await docgen('--update');
    expect(update.code).toBe(0);
    expect(lineOf(update.lines, docxA)).toMatchObject({
      baseline: 'missing',
      stored: true,
      baseline_input: 'document',
      organization_id: orgA.organizationId,
      is_uat: false,
    });
    expect(lineOf(update.lines, htmlA)).toMatchObject({ stored: true, baseline_input: 'sample', is_uat: true, pages: 1 });
    expect(lineOf(update.lines, docxB)).toMatchObject({ stored: true, baseline_input: 'sample', organization_id: orgB.organizationId });
    expect(await storage.list(renderingBaselinePrefix(orgA.organizationId, docxA, 1))).toEqual(
      expect.arrayContaining([expect.stringMatching(/baseline\.json$/), expect.stringMatching(/page-001\.png$/)]),
    );

    const again = await docgen();
    expect(again.code).toBe(0);
    for (const id of [docxA, htmlA, docxB]) {
      const line = lineOf(again.lines, id);
      expect(line).toMatchObject({ version: 1, changed_ratio: 0, baseline: 'compared' });
      expect(existsSync(line.diff!)).toBe(true);
    }
  }, 240_000);

  it('fails on a page that changed past the threshold, with a diff PNG that shows where', async () => {
    // A baseline page with a black square drawn in: the renderer "changed" there.
    const pageKey = `${renderingBaselinePrefix(orgA.organizationId, docxA, 1)}page-001.png`;
    const original = await storage.get(pageKey);
    const page = PNG.sync.read(original);
    const square = { x: 300, y: 500, size: 200 };
    for (let y = square.y; y < square.y + square.size; y++) {
      for (let x = square.x; x < square.x + square.size; x++) page.data.fill(0, (y * page.width + x) * 4, (y * page.width + x) * 4 + 3);
    }
    await storage.put(pageKey, PNG.sync.write(page));

    const checked = await docgen();
    expect(checked.code).toBe(1);
    const line = lineOf(checked.lines, docxA);
    const expected = (square.size * square.size) / (page.width * page.height);
    expect(line.changed_ratio).toBeGreaterThan(0.01);
    expect(line.changed_ratio!).toBeGreaterThan(expected * 0.9);
    expect(line.changed_ratio!).toBeLessThanOrEqual(expected + 1e-6); // rounded to 6 decimals
    expect(lineOf(checked.lines, docxB).changed_ratio).toBe(0);
    expect(checked.stderr).toContain('1 template version(s) render differently');

    // pixelmatch paints changed pixels red: inside the square red, far from it not.
    const diff = PNG.sync.read(readFileSync(line.diff!));
    expect(line.diff).toBe(path.join(outDir, `${docxA}-v1.png`));
    const at = (x: number, y: number) => [...diff.data.subarray((y * diff.width + x) * 4, (y * diff.width + x) * 4 + 3)];
    expect(at(square.x + square.size / 2, square.y + square.size / 2)).toEqual([255, 0, 0]);
    expect(at(10, 10)).not.toEqual([255, 0, 0]);

    // The threshold decides: the same change passes under 0.5; a threshold that is not a share is refused.
    expect((await docgen('--threshold', '0.5')).code).toBe(0);
    const badThreshold = await docgen('--threshold', '5');
    expect(badThreshold.code).toBe(2);
    expect(badThreshold.stderr).toContain('--threshold must be');

    // --org checks one organisation only: B has not changed.
    const onlyB = await docgen('--org', orgB.organizationId);
    expect(onlyB.code).toBe(0);
    expect(onlyB.lines.map((l) => l.template_id)).toEqual([docxB]);
    const unknown = await docgen('--org', 'no-such-org');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No organisation with id or name "no-such-org"');

    await storage.put(pageKey, original);
    expect((await docgen('--org', orgA.organizationId)).code).toBe(0);
  }, 300_000);

  it('counts a page added by a changed template file as fully changed, and --update accepts it', async () => {
    // A file LibreOffice cannot open is that version's failed line with the reason, not a crash.
    await storage.put(templateFileKey(orgB.organizationId, docxB), Buffer.from('not a docx'));
    const broken = await docgen();
    expect(broken.code).toBe(1);
    expect(lineOf(broken.lines, docxB)).toMatchObject({ baseline: 'failed', changed_ratio: 1, error: expect.any(String) });
    expect(lineOf(broken.lines, docxA)).toMatchObject({ baseline: 'compared', changed_ratio: 0 });

    // The file under B's template now says "for" instead of "to" and breaks onto a second page.
    const twoPages = buildDocx({ body: `${paragraph('Letter for {recipient}')}<w:p><w:r><w:br w:type="page"/></w:r></w:p>${paragraph('Second page')}` });
    await storage.put(templateFileKey(orgB.organizationId, docxB), twoPages);

    const checked = await docgen('--org', orgB.organizationId);
    expect(checked.code).toBe(1);
    expect(checked.lines[0]).toMatchObject({ template_id: docxB, changed_ratio: 1, pages: 2 });
    const [firstPage, secondPage] = checked.lines[0]!.page_ratios!;
    expect(firstPage).toBeGreaterThan(0); // a word's worth of pixels
    expect(firstPage).toBeLessThan(0.01);
    expect(secondPage).toBe(1);
    const diff = PNG.sync.read(readFileSync(checked.lines[0]!.diff!));
    expect(diff.height).toBeGreaterThan(2 * 1000); // both pages, one under the other

    expect((await docgen('--org', orgB.organizationId, '--update')).code).toBe(0);
    const accepted = await docgen('--org', orgB.organizationId);
    expect(accepted.code).toBe(0);
    expect(accepted.lines[0]).toMatchObject({ changed_ratio: 0, pages: 2 });
  }, 240_000);
});
