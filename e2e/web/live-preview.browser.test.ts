import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import type { Browser, BrowserContext, Locator } from 'playwright-core';
import { apiClient, buildDocx, paragraph, repoRoot, startStack, type Stack } from '@docgen/testing';
import { horizontalOverflow, launchBrowser, replaceEditorText, seriousViolations, signIn, signedInPage, tabTo, type OpenedContext } from './browser';
import { createUser } from './people';

// A whole stack and a browser: every test and hook here may take up to 4 minutes.
jest.setTimeout(240_000);

const screenshotDir = process.env.DOCGEN_UPDATE_SCREENSHOTS === '1' ? path.join(repoRoot, 'docs', 'ui') : path.join(tmpdir(), 'docgen-ui-screenshots');
mkdirSync(screenshotDir, { recursive: true });

const invoiceDocx = buildDocx({
  body: [paragraph('Invoice for {client_name}'), paragraph('Due {due}'), paragraph('{#items}'), paragraph('Item: {description}'), paragraph('{/items}')].join(
    '',
  ),
});

/** The image the region shows now, as decoded pixels (drawn on a canvas inside the page: the CSP keeps fetch off blob: URLs). */
async function shownImage(region: Locator): Promise<{ src: string; png: PNG }> {
  const { src, dataUrl } = await region.getByRole('img').evaluate(async (el: HTMLImageElement) => {
    await el.decode();
    const canvas = document.createElement('canvas');
    canvas.width = el.naturalWidth;
    canvas.height = el.naturalHeight;
    canvas.getContext('2d')!.drawImage(el, 0, 0);
    return { src: el.src, dataUrl: canvas.toDataURL('image/png') };
  });
  return { src, png: PNG.sync.read(Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64')) };
}

describe('live preview on the template page, in a real browser against the real services', () => {
  let stack: Stack;
  let browser: Browser;
  let base: string;
  let person: { email: string; password: string };
  let templateId: string;
  const contexts: OpenedContext[] = [];

  beforeAll(async () => {
    stack = await startStack();
    base = stack.gateways[0]!.url;
    const org = await stack.organization();
    person = await createUser(stack.database.url, org.organizationId, 'author@example.com', 'member');
    templateId = (await apiClient(base, org.apiKey).uploadTemplate(invoiceDocx, 'Invoice.docx')).id;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const { context } of contexts) await context.close();
    await browser?.close();
    await stack?.close();
  });

  const openTemplate = (viewport: { width: number; height: number }) =>
    signedInPage(browser, contexts, base, person, `/templates/${templateId}`, { viewport, timeoutMs: 30_000 });

  /** Makes a change and waits for the preview to show a new image; the time from the change to it. */
  async function changeAndWaitForNewImage(region: Locator, change: () => Promise<void>): Promise<{ ms: number; png: PNG }> {
    const before = await shownImage(region);
    await change();
    const changedAt = Date.now();
    // Object URLs hold no quotes or backslashes, so the src is safe inside the selector.
    await region
      .locator(`img:not([src="${before.src}"])`)
      .waitFor({ timeout: 30_000 })
      .catch(async (error: Error) => {
        throw new Error(
          `the preview showed no new image within 30 s; the region said: ${JSON.stringify(await region.innerText())} (${error.message.split('\n')[0]})`,
        );
      });
    const ms = Date.now() - changedAt;
    const after = await shownImage(region);
    expect([after.png.width, after.png.height]).toEqual([before.png.width, before.png.height]);
    expect(pixelmatch(before.png.data, after.png.data, null, before.png.width, before.png.height)).toBeGreaterThan(100);
    return { ms, png: after.png };
  }

  it('shows the filled first page beside the form and follows typing in the Form tab within 2 s', async () => {
    const page = await openTemplate({ width: 1280, height: 900 });
    const region = page.getByRole('region', { name: 'Live preview', exact: true });
    await region.getByRole('img').waitFor();
    const first = await shownImage(region);
    expect(first.png.height).toBe(1100); // the page's longer side, as the API renders it

    // Split layout: the preview stands to the right of the form, at the same height.
    const form = page.getByRole('region', { name: 'Generate a document', exact: true });
    const [formBox, previewBox] = [(await form.boundingBox())!, (await region.boundingBox())!];
    expect(previewBox.x).toBeGreaterThanOrEqual(formBox.x + formBox.width - 1);
    expect(Math.abs(previewBox.y - formBox.y)).toBeLessThan(5);

    await page.getByRole('tab', { name: 'Form', exact: true }).click();
    const field = page.getByLabel('client_name', { exact: true });
    let { ms } = await changeAndWaitForNewImage(region, () => field.fill('Ada Lovelace'));
    if (ms >= 2_000) ms = Math.min(ms, (await changeAndWaitForNewImage(region, () => field.fill('Ada King'))).ms); // a loaded machine: once more
    process.stderr.write(`live preview followed the form in ${ms} ms\n`);
    expect(ms).toBeLessThan(2_000);

    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(screenshotDir, 'template-live-preview.png'), fullPage: true, caret: 'initial' });

    // The keyboard reaches the button, and it asks again.
    const refresh = region.getByRole('button', { name: 'Refresh preview', exact: true });
    await tabTo(page, refresh, 120);
    const responded = page.waitForResponse((r) => r.url().includes(`/templates/${templateId}/preview`) && r.request().method() === 'POST');
    await page.keyboard.press('Enter');
    expect((await responded).status()).toBe(200);
  });

  it('follows the JSON tab, says when the JSON is not complete, and shows input problems in words', async () => {
    const page = await openTemplate({ width: 1280, height: 900 });
    const region = page.getByRole('region', { name: 'Live preview', exact: true });
    await region.getByRole('img').waitFor();
    await page.getByRole('tab', { name: 'JSON', exact: true }).click();
    const editor = page.getByRole('textbox', { name: 'Input JSON' });
    await editor.waitFor();
    const replaceJson = (text: string) => replaceEditorText(page, editor, text);

    await replaceJson('{"client_name": "Grace", "due": ');
    await region.getByText('The JSON is not complete yet').waitFor();

    await changeAndWaitForNewImage(region, () => replaceJson(JSON.stringify({ client_name: 'Grace Hopper', due: 'soon', items: [{ description: 'COBOL' }] })));

    // A required token missing: the old page stays, dimmed, and the problem is named.
    await replaceJson(JSON.stringify({ due: 'soon', items: [] }));
    await region.getByText('To update the preview, fix:').waitFor();
    await region.getByText(/client_name/).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await region.screenshot({ path: path.join(screenshotDir, 'template-live-preview-problem.png'), caret: 'initial' });
  });

  it('stacks under the form at 390 px without sideways scrolling', async () => {
    const page = await openTemplate({ width: 390, height: 844 });
    const region = page.getByRole('region', { name: 'Live preview', exact: true });
    await region.getByRole('img').waitFor();
    const form = page.getByRole('region', { name: 'Generate a document', exact: true });
    const [formBox, previewBox] = [(await form.boundingBox())!, (await region.boundingBox())!];
    expect(previewBox.y).toBeGreaterThanOrEqual(formBox.y + formBox.height - 1);
    expect(previewBox.width).toBeLessThanOrEqual(390);
    expect(await horizontalOverflow(page)).toBe(0);
    await page.screenshot({ path: path.join(screenshotDir, 'template-live-preview-390.png'), fullPage: true, caret: 'initial' });
  });

  it('left no console errors or CSP violations', () => {
    expect(contexts.flatMap(({ problems }) => problems)).toEqual([]);
  });
});

describe('live preview while no render worker runs, in a real browser', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    // Time enough for a just-started worker's first, cold preview on a loaded machine (3 s was
    // not, once, in a clean-clone CI run on a slow shared machine: the preview was refused as
    // the template's fault and the page, rightly, stopped asking).
    stack = await startStack({ workers: 0, env: { PREVIEW_TIMEOUT_MS: '6000' } });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await stack?.close();
  });

  it('says the preview could not be updated, then shows the page by itself once a worker is up', async () => {
    const base = stack.gateways[0]!.url;
    const org = await stack.organization();
    const person = await createUser(stack.database.url, org.organizationId, 'waiting@example.com', 'member');
    const templateId = (await apiClient(base, org.apiKey).uploadTemplate(invoiceDocx, 'Invoice.docx')).id;
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await signIn(page, base, person, `/templates/${templateId}`);

    const region = page.getByRole('region', { name: 'Live preview', exact: true });
    await region.getByRole('alert').filter({ hasText: 'No render worker rendered the preview within 7 s' }).waitFor();
    expect(await region.getByRole('img').count()).toBe(0);

    // Nobody clicks Refresh preview: the page asks again after each Retry-After, waiting longer each time.
    const worker = await stack.start('render-worker');
    await region
      .getByRole('img')
      .waitFor({ timeout: 90_000 })
      .catch(async (error: Error) => {
        const previews = worker.logs.filter((line) => String(line.msg).startsWith('live preview'));
        throw new Error(
          `no preview within 90 s of the worker's start; the region said ${JSON.stringify(await region.innerText())}, the worker logged ${JSON.stringify(previews)} (${error.message.split('\n')[0]})`,
        );
      });
    expect(await region.getByRole('alert').count()).toBe(0);
  });
});
