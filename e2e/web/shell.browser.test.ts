import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { apiClient, buildDocx, paragraph, repoRoot, startStack, type ApiClient, type Stack } from '@docgen/testing';
import { horizontalOverflow, launchBrowser, seriousViolations, signIn as signInAt, tabTo, waitUntil, watchedPage, type OpenedContext } from './browser';
import { createUser } from './people';

// The app shell and the pages beside the template page (API.md §14): /documents, /bulk-jobs,
// navigation with API reference and Menu, alerts, tables, Copy, dark mode.
jest.setTimeout(240_000);

// DOCGEN_UPDATE_SCREENSHOTS=1 writes the screenshots docs/ui.md shows; otherwise they go to a temp folder.
const screenshotDir = process.env.DOCGEN_UPDATE_SCREENSHOTS === '1' ? path.join(repoRoot, 'docs', 'ui') : path.join(tmpdir(), 'docgen-ui-screenshots');
mkdirSync(screenshotDir, { recursive: true });

const WIDE = { width: 1280, height: 900 };
const NARROW = { width: 390, height: 844 };
const PAGE_SIZE = 25;

describe('the web UI shell, /documents and /bulk-jobs in a real browser against the real services', () => {
  let stack: Stack;
  let client: ApiClient;
  let browser: Browser;
  let base: string;
  let admin: { email: string; password: string };
  let invoiceId: string;
  let receiptId: string;
  let bulkId: string;
  let failure: { id: string; error_message: string };
  const contexts: OpenedContext[] = [];

  beforeAll(async () => {
    // Webhook registration of https://127.0.0.1 below needs the address rule lifted (it is never delivered to).
    stack = await startStack({ env: { OUTBOUND_ALLOW_PRIVATE: 'true' } });
    base = stack.gateways[0]!.url;
    const org = await stack.organization();
    client = apiClient(base, org.apiKey);
    admin = await createUser(stack.database.url, org.organizationId, 'ada@example.com', 'admin');
    invoiceId = (await client.uploadTemplate(buildDocx({ body: paragraph('Invoice for {client_name}') }), 'Invoice.docx')).id;
    receiptId = (await client.uploadTemplate(buildDocx({ body: [paragraph('Receipt for {client}'), paragraph('{%logo}')].join('') }), 'Receipt.docx')).id;

    // One page and one more of documents (DOCX only: no conversion, so this is quick), one that fails, one bulk job.
    const ids: string[] = [];
    for (let i = 0; i < PAGE_SIZE + 1; i++) {
      const created = await client.call('POST', '/api/v1/documents', {
        template_id: invoiceId,
        input_json: { client_name: `Client ${i}` },
        output_format: 'docx',
      });
      ids.push(created.body.id);
    }
    const failing = await client.call('POST', '/api/v1/documents', {
      template_id: receiptId,
      input_json: { client: 'Grace', logo: 'http://127.0.0.1:1/logo.png' },
      output_format: 'docx',
    });
    const bulk = await client.postFile('/api/v1/bulk-jobs', Buffer.from('client_name\r\nAda\r\nBob\r\n'), 'rows.csv', {
      template_id: invoiceId,
      output_format: 'docx',
    });
    bulkId = bulk.body.id;
    for (const id of ids) await client.waitForDocument(id);
    failure = (await client.waitForDocument(failing.body.id)) as unknown as typeof failure;
    expect(failure).toMatchObject({ status: 'failed' });
    expect((await client.waitForBulkJob(bulkId)).status).toBe('completed');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  const newPage = (viewport = WIDE, colorScheme: 'light' | 'dark' = 'light') =>
    watchedPage(browser, contexts, { viewport, colorScheme, acceptDownloads: true, clipboardOrigin: base, timeoutMs: 20_000 });

  const signIn = (page: Page, next: string) => signInAt(page, base, admin, next);

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true, caret: 'initial' });

  async function expectAccessible(page: Page, where: string) {
    expect({ where, violations: await seriousViolations(page) }).toEqual({ where, violations: [] });
  }

  /** Words of table cells that the layout broke across two lines ("read/y"). */
  const brokenWords = (page: Page) =>
    page.evaluate(() => {
      const broken: string[] = [];
      for (const cell of Array.from(document.querySelectorAll('table th, table td'))) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? '';
          for (const match of text.matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(node, match.index);
            range.setEnd(node, match.index + match[0].length);
            const tops = new Set(Array.from(range.getClientRects()).map((rect) => Math.round(rect.top)));
            if (tops.size > 1) broken.push(match[0]);
          }
        }
      }
      return broken;
    });

  /** Tables wider than the screen must sit in a box that scrolls sideways and takes keyboard focus; nothing is clipped. */
  const clippedTables = (page: Page) =>
    page.evaluate(() => {
      const problems: string[] = [];
      for (const table of Array.from(document.querySelectorAll('table'))) {
        const name = table.querySelector('caption')?.textContent ?? 'table';
        let box: HTMLElement | null = table.parentElement;
        while (box && !['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
        const limit = box ? box.getBoundingClientRect() : { left: 0, right: document.documentElement.clientWidth };
        const rect = table.getBoundingClientRect();
        if (!box && (rect.right > limit.right + 0.5 || rect.left < -0.5)) problems.push(`${name} is cut off`);
        if (box && box.scrollWidth > box.clientWidth && box.tabIndex < 0) problems.push(`${name} scrolls but the keyboard cannot reach it`);
      }
      return problems;
    });

  /** The text of the elements that describe `field` (aria-describedby). */
  const description = (page: Page, label: string) =>
    page.getByLabel(label, { exact: true }).evaluate((field) =>
      (field.getAttribute('aria-describedby') ?? '')
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    );

  it('/documents lists documents across templates, filters by status and template, and pages with Load more', async () => {
    const page = await newPage();
    await signIn(page, '/templates');
    await page.getByRole('link', { name: 'Documents', exact: true }).click();
    await page.getByRole('heading', { name: 'Documents', exact: true, level: 1 }).waitFor();
    const table = page.getByRole('table', { name: 'Documents', exact: true });
    const bodyRows = table.locator('tbody tr');
    await waitUntil(async () => (await bodyRows.count()) === PAGE_SIZE, 'the first page of documents');
    const firstPage = await table.textContent();
    expect(firstPage).toContain('Invoice');
    expect(firstPage).toContain('Receipt');
    expect(firstPage).toContain(failure.error_message);
    expect(await brokenWords(page)).toEqual([]);
    await expectAccessible(page, '/documents');
    await shot(page, 'documents');

    // Load more with the keyboard alone: 26 + 1 + 2 bulk rows in all, and then no more pages.
    const loadMore = page.getByRole('button', { name: 'Load more', exact: true });
    await tabTo(page, loadMore, 200);
    await page.keyboard.press('Enter');
    await waitUntil(async () => (await bodyRows.count()) === PAGE_SIZE + 4, 'the second page of documents');
    await loadMore.waitFor({ state: 'detached' });

    // Status from the keyboard: focus the select and choose "failed" by typing.
    const status = page.getByRole('combobox', { name: 'Status', exact: true });
    await tabTo(page, status);
    await status.selectOption({ label: 'failed' });
    await waitUntil(async () => (await bodyRows.count()) === 1, 'only the failed document');
    expect(await table.textContent()).toContain('Receipt');
    await status.selectOption({ label: 'Any status' });

    await page.getByRole('combobox', { name: 'Template', exact: true }).selectOption({ label: 'Receipt' });
    await waitUntil(async () => (await bodyRows.count()) === 1, 'only the Receipt document');
    await page.getByRole('combobox', { name: 'Template', exact: true }).selectOption({ label: 'Every template' });
    // Back to the unfiltered list, with the pages already loaded.
    await waitUntil(async () => (await bodyRows.count()) === PAGE_SIZE + 4, 'the unfiltered list');
    // A row's template is a link to its page.
    await table.getByRole('link', { name: 'Receipt', exact: true }).click();
    await page.getByRole('heading', { name: 'Receipt', exact: true, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/templates/${receiptId}`);
  });

  it('/bulk-jobs lists every bulk job with its template, status and rows, and downloads its ZIP', async () => {
    const page = await newPage();
    await signIn(page, '/templates');
    await page.getByRole('link', { name: 'Bulk jobs', exact: true }).click();
    await page.getByRole('heading', { name: 'Bulk jobs', exact: true, level: 1 }).waitFor();
    const row = page.getByRole('table', { name: 'Bulk jobs', exact: true }).locator('tbody tr');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    const text = await row.textContent();
    expect(text).toContain('Invoice');
    expect(text).toContain('completed');
    expect(text).toContain('2 of 2 rows');
    expect(await brokenWords(page)).toEqual([]);
    await expectAccessible(page, '/bulk-jobs');
    await shot(page, 'bulk-jobs');

    const link = row.getByRole('link', { name: 'Download ZIP', exact: true });
    await tabTo(page, link);
    const [file] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    const entries = execFileSync('unzip', ['-Z1', (await file.path())!], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .sort();
    expect(entries).toEqual(['errors.xlsx', 'row-0002.docx', 'row-0003.docx']);

    // UAT has its own bulk jobs: none here.
    await page.getByRole('radio', { name: 'UAT', exact: true }).check();
    await page.getByText('No bulk jobs yet.').waitFor();
  });

  it('every page links to the API reference and the new pages; at 390 px the links fold behind Menu, usable by keyboard', async () => {
    const page = await newPage();
    await page.goto(`${base}/login`);
    await page.getByRole('heading', { name: 'Sign in to docgen', exact: true, level: 1 }).waitFor();
    const signInNav = page.getByRole('navigation', { name: 'Main' });
    expect(await signInNav.getByRole('link', { name: 'API reference', exact: true }).getAttribute('href')).toBe('/docs');
    await shot(page, 'sign-in');
    await signIn(page, '/templates');
    const routes: [string, string][] = [
      ['/templates', 'Templates'],
      ['/documents', 'Documents'],
      ['/bulk-jobs', 'Bulk jobs'],
      [`/templates/${invoiceId}`, 'Invoice'],
      ['/settings/developer', 'Developer settings'],
      ['/settings/members', 'Members'],
      ['/settings/account', 'Account'],
    ];
    for (const [route, heading] of routes) {
      await page.goto(`${base}${route}`);
      await page.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Main' });
      expect(await nav.getByRole('link', { name: 'API reference', exact: true }).getAttribute('href')).toBe('/docs');
      for (const name of ['Documents', 'Bulk jobs']) expect(await nav.getByRole('link', { name, exact: true }).count()).toBe(1);
      // Wide screens have no Menu button: the links are all there.
      expect(await page.getByRole('button', { name: 'Menu', exact: true }).count()).toBe(0);
      expect(await brokenWords(page)).toEqual([]);
    }
    await page.getByRole('link', { name: 'API reference', exact: true }).click();
    // swagger-ui-express answers /docs with a redirect to /docs/.
    await page.waitForURL((url) => url.pathname.replace(/\/$/, '') === '/docs');
    expect(await page.title()).toBe('docgen API');

    const narrow = await newPage(NARROW);
    await signIn(narrow, '/documents');
    await narrow.getByRole('heading', { name: 'Documents', exact: true, level: 1 }).waitFor();
    const header = await narrow.locator('header').boundingBox();
    expect(header!.height).toBeLessThanOrEqual(64);
    expect(await narrow.getByRole('link', { name: 'API reference', exact: true }).count()).toBe(0);
    const menu = narrow.getByRole('button', { name: 'Menu', exact: true });
    await shot(narrow, 'documents-390');
    await tabTo(narrow, menu);
    await narrow.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await narrow.getByRole('link', { name: 'API reference', exact: true }).waitFor();
    await expectAccessible(narrow, 'open menu at 390 px');
    await shot(narrow, 'menu-390');
    // Escape folds it again and gives focus back to Menu.
    await narrow.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await menu.evaluate((el) => el === document.activeElement)).toBe(true);
    // Open again; Tab reaches Bulk jobs; following it closes the menu.
    await narrow.keyboard.press('Enter');
    await tabTo(narrow, narrow.getByRole('link', { name: 'Bulk jobs', exact: true }));
    await narrow.keyboard.press('Enter');
    await narrow.getByRole('heading', { name: 'Bulk jobs', exact: true, level: 1 }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await narrow.getByRole('table', { name: 'Bulk jobs' }).waitFor();
    await shot(narrow, 'bulk-jobs-390');
    // Sign out stays one press away on a narrow screen.
    expect(await narrow.getByRole('button', { name: 'Sign out', exact: true }).isVisible()).toBe(true);
  });

  it('tables: no word broken at 1280 px; at 390 px nothing cut off and no sideways page scroll', async () => {
    const narrow = await newPage(NARROW);
    await signIn(narrow, '/documents');
    for (const [route, table] of [
      ['/documents', 'Documents'],
      ['/bulk-jobs', 'Bulk jobs'],
      ['/settings/developer', 'API keys'],
      ['/settings/members', 'Members of'],
      [`/templates/${invoiceId}`, 'History'],
    ] as const) {
      await narrow.goto(`${base}${route}`);
      await narrow.getByRole('table', { name: table }).waitFor();
      expect({ route, overflow: await horizontalOverflow(narrow) }).toEqual({ route, overflow: 0 });
      expect({ route, problems: await clippedTables(narrow) }).toEqual({ route, problems: [] });
      if (route === '/documents' || route === '/bulk-jobs') {
        // The list pages reflow: no sideways scrolling at all, the table is still a table named by its caption.
        const wide = await narrow.getByRole('table', { name: table }).evaluate((el) => el.parentElement!.scrollWidth - el.parentElement!.clientWidth);
        expect({ route, sideways: wide }).toEqual({ route, sideways: 0 });
      }
      await expectAccessible(narrow, `${route} at 390 px`);
    }

    const wide = await newPage();
    await signIn(wide, `/templates/${invoiceId}`);
    await wide.getByRole('table', { name: 'History' }).locator('tbody tr').first().waitFor();
    expect(await brokenWords(wide)).toEqual([]);
  });

  it('alerts list a message once, and go away when it is fixed or a later action succeeds', async () => {
    const page = await newPage();
    await signIn(page, '/templates');
    // A {@raw} tag: one problem, listed once.
    await page
      .getByLabel('Template file', { exact: true })
      .setInputFiles({ name: 'raw.docx', mimeType: 'application/octet-stream', buffer: buildDocx({ body: paragraph('Hello {@body}') }) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const uploadAlert = page.getByRole('alert').filter({ hasText: 'Raw XML tags' });
    await uploadAlert.waitFor();
    expect((await uploadAlert.textContent())!.split('Raw XML tags').length - 1).toBe(1);

    await page.goto(`${base}/settings/developer`);
    const url = page.getByLabel('Endpoint URL', { exact: true });
    await url.fill('http://127.0.0.1:9/hook');
    await page.getByRole('button', { name: 'Add webhook', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Webhook URL must use HTTPS' });
    await alert.waitFor();
    // Headline and a single bullet saying the same: said once.
    expect((await alert.textContent())!.split('must use HTTPS').length - 1).toBe(1);
    expect(await alert.getByRole('listitem').count()).toBe(0);
    await expectAccessible(page, 'developer settings with an alert');

    // Fixing the field the alert is about takes it away.
    await url.fill('https://127.0.0.1:9/hook');
    await alert.waitFor({ state: 'detached' });

    // A later success elsewhere on the page takes an old failure away.
    await url.fill('http://127.0.0.1:9/hook');
    await page.getByRole('button', { name: 'Add webhook', exact: true }).click();
    await alert.waitFor();
    await page.getByLabel('Key name', { exact: true }).fill('later success');
    await page.getByRole('button', { name: 'Create API key', exact: true }).click();
    await page.getByRole('textbox', { name: 'New API key' }).waitFor();
    await alert.waitFor({ state: 'detached' });
  });

  it('every one-time secret has its own Copy; the webhooks section says how to test on a laptop', async () => {
    const page = await newPage();
    await signIn(page, '/settings/developer');
    expect(await description(page, 'Endpoint URL')).toContain('OUTBOUND_ALLOW_PRIVATE=true');
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
    const copyOf = (field: string) =>
      page
        .locator('.secret')
        .filter({ has: page.getByRole('textbox', { name: field }) })
        .getByRole('button', { name: 'Copy' });

    await page.getByLabel('Key name', { exact: true }).fill('copy me');
    await page.getByRole('button', { name: 'Create API key', exact: true }).click();
    const key = await page.getByRole('textbox', { name: 'New API key' }).inputValue();
    await tabTo(page, copyOf('New API key'));
    await page.keyboard.press('Enter');
    await waitUntil(async () => (await clipboard()) === key, 'the API key on the clipboard');

    await page.getByLabel('Endpoint URL', { exact: true }).fill('https://127.0.0.1:9/copy-hook');
    await page.getByRole('button', { name: 'Add webhook', exact: true }).click();
    const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    expect(await page.getByRole('button', { name: 'Copy', exact: true }).count()).toBe(2);
    await copyOf('Signing secret').click();
    await waitUntil(async () => (await clipboard()) === secret, 'the signing secret on the clipboard');
    await page.getByText('Testing webhooks on your own machine', { exact: true }).click();
    await expectAccessible(page, 'developer settings with two secrets');
    await shot(page, 'developer-secrets');

    await page.getByRole('link', { name: 'Members', exact: true }).click();
    await page.getByLabel('Email', { exact: true }).fill('grace@example.com');
    await page.getByRole('button', { name: 'Add member', exact: true }).click();
    const password = await page.getByRole('textbox', { name: 'Password', exact: true }).inputValue();
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await waitUntil(async () => (await clipboard()) === password, 'the password on the clipboard');
    expect(await page.getByLabel('Password').count()).toBe(1);
  });

  it('dark mode follows the system, and every page is axe-clean in it, wide and narrow', async () => {
    for (const viewport of [WIDE, NARROW]) {
      const page = await newPage(viewport, 'dark');
      await signIn(page, '/templates');
      const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      const [r, g, b] = background.match(/\d+/g)!.map(Number);
      expect(r! + g! + b!).toBeLessThan(150);
      const suffix = viewport === WIDE ? 'dark' : '390-dark';
      for (const [route, heading, name] of [
        ['/templates', 'Templates', 'templates'],
        ['/documents', 'Documents', 'documents'],
        ['/bulk-jobs', 'Bulk jobs', 'bulk-jobs'],
        [`/templates/${invoiceId}`, 'Invoice', 'template'],
        ['/settings/developer', 'Developer settings', 'developer'],
        ['/settings/members', 'Members', 'members'],
        ['/settings/account', 'Account', 'account'],
      ] as const) {
        await page.goto(`${base}${route}`);
        await page.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor();
        if (route.startsWith('/templates/')) {
          await page.getByRole('table', { name: 'History' }).waitFor();
          // The JSON editor (CodeMirror, in a shadow root) too: its highlighting must stay readable on dark.
          await page.getByRole('tab', { name: 'JSON', exact: true }).click();
          await page.getByRole('textbox', { name: 'Input JSON' }).waitFor();
        }
        if (route === '/documents') await page.getByRole('table', { name: 'Documents' }).waitFor();
        if (route === '/bulk-jobs') await page.getByRole('table', { name: 'Bulk jobs' }).waitFor();
        await expectAccessible(page, `${route} dark ${viewport.width} px`);
        expect({ route, overflow: await horizontalOverflow(page) }).toEqual({ route, overflow: 0 });
        if (['documents', 'bulk-jobs', 'developer'].includes(name)) await shot(page, `${name}-${suffix}`);
      }
    }
    const login = await newPage(WIDE, 'dark');
    await login.goto(`${base}/login`);
    await login.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await expectAccessible(login, '/login dark');
  });

  it('a sign-out that does not reach the server says so and stays signed in; a next that is not a path of this site is not followed', async () => {
    // A profile of its own, not watched: Chrome logs the refused request as a console error, as it should.
    const context = await browser.newContext({ viewport: WIDE });
    try {
      const page = await context.newPage();
      await signIn(page, '/templates');
      await page.route('**/api/v1/session', (route) => (route.request().method() === 'DELETE' ? route.abort('connectionfailed') : route.fallback()));
      const signOut = page.getByRole('button', { name: 'Sign out', exact: true });
      await signOut.click();
      await page.getByRole('alert').filter({ hasText: 'Could not sign out' }).waitFor();
      await shot(page, 'sign-out-failed');
      expect(new URL(page.url()).pathname).toBe('/templates');
      await page.unroute('**/api/v1/session');
      await signOut.click();
      await page.waitForURL((url) => url.pathname === '/login');
      await page.goto(`${base}/templates`);
      await page.waitForURL((url) => url.pathname === '/login');

      // Browsers read a backslash as "/" and drop tabs: neither "next" leaves the site, and signing in still lands.
      for (const next of ['/%5Cevil.example', '/%09/evil.example']) {
        await page.goto(`${base}/login?next=${next}`);
        await page.getByLabel('Email', { exact: true }).fill(admin.email);
        await page.getByLabel('Password', { exact: true }).fill(admin.password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.waitForURL((url) => url.origin === base && url.pathname === '/templates');
        await page.getByRole('button', { name: 'Sign out', exact: true }).click();
        await page.waitForURL((url) => url.pathname === '/login');
      }
    } finally {
      await context.close();
    }
  });

  it('no page logged a console error or a Content-Security-Policy violation', () => {
    expect(contexts.flatMap((c) => c.problems)).toEqual([]);
  });
});
