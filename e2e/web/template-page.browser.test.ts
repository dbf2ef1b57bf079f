// The template page's §14 controls (formats and locale, management, history, validation,
// "Call it from code"), driven by role and name in Chromium against the real services.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { apiClient, buildDocx, paragraph, repoRoot, startStack, type ApiClient, type SeededOrganization, type Stack } from '@docgen/testing';
import { horizontalOverflow, launchBrowser, seriousViolations, signedInPage as openSignedIn, tabTo, waitUntil, type OpenedContext } from './browser';
import { createUser } from './people';

jest.setTimeout(240_000);

const screenshotDir = process.env.DOCGEN_UPDATE_SCREENSHOTS === '1' ? path.join(repoRoot, 'docs', 'ui') : path.join(tmpdir(), 'docgen-ui-screenshots');
mkdirSync(screenshotDir, { recursive: true });

/** Every kind of variable: text, a date, a number, a list with a number field, an image. */
const orderDocx = buildDocx({
  body: [
    paragraph('Order for {client_name}'),
    paragraph('Due {due}'),
    paragraph('Total {total}'),
    paragraph('{#items}'),
    paragraph('Item: {description} at {price}'),
    paragraph('{/items}'),
    paragraph('{%logo}'),
  ].join(''),
});

interface VariableBody {
  name: string;
  type: string;
  required: boolean;
  format?: unknown;
  field_types?: Record<string, string>;
  field_formats?: Record<string, unknown>;
}

describe('template page (§14) in a real browser against the real services', () => {
  let stack: Stack;
  let org: SeededOrganization;
  let client: ApiClient;
  let browser: Browser;
  let base: string;
  let admin: { email: string; password: string };
  const contexts: OpenedContext[] = [];

  beforeAll(async () => {
    // One warm converter: these tests render little, and a machine shared by many starts it sooner.
    stack = await startStack({ env: { CONVERTER_POOL_SIZE: '1' } });
    base = stack.gateways[0]!.url;
    org = await stack.organization();
    client = apiClient(base, org.apiKey);
    admin = await createUser(stack.database.url, org.organizationId, 'author@example.com', 'member');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  afterEach(async () => {
    for (const { context, problems } of contexts.splice(0)) {
      await context.close();
      expect(problems).toEqual([]);
    }
  });

  const signedInPage = (next: string, viewport = { width: 1280, height: 900 }) =>
    openSignedIn(browser, contexts, base, admin, next, { viewport, acceptDownloads: true, clipboardOrigin: base, timeoutMs: 20_000 });

  const expectAccessible = async (page: Page) => expect(await seriousViolations(page)).toEqual([]);
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true, caret: 'initial' });

  async function template(id: string, isUat = false): Promise<{ name: string; locale: string; variables: VariableBody[] }> {
    return (await client.call('GET', `/api/v1/templates/${id}${isUat ? '?is_uat=true' : ''}`)).body as {
      name: string;
      locale: string;
      variables: VariableBody[];
    };
  }
  const variable = async (id: string, name: string) => (await template(id)).variables.find((v) => v.name === name)!;
  const optionsOf = (page: Page, name: string) =>
    page.getByRole('table', { name: 'Variables' }).getByRole('combobox', { name, exact: true }).locator('option').allTextContents();

  it('formats and locale: set in dialogs, shown when set over the API; Type offers only what the tag allows', async () => {
    const id = (await client.uploadTemplate(orderDocx, 'Order.docx')).id;
    // A format set over the API shows on the page.
    await client.call('PATCH', `/api/v1/templates/${id}/variables`, { variables: [{ name: 'due', type: 'date', format: 'DD/MM/YYYY' }] });
    const page = await signedInPage(`/templates/${id}`);
    await page.getByRole('heading', { name: 'Order', exact: true, level: 1 }).waitFor();
    const variables = page.getByRole('table', { name: 'Variables' });
    await variables.getByRole('row', { name: /^due/ }).getByText('DD/MM/YYYY (24/12/2026)').waitFor();

    // Only the types each tag can take.
    expect(await optionsOf(page, 'Type of logo')).toEqual(['Image']);
    expect(await optionsOf(page, 'Type of items')).toEqual(['List']);
    expect(await optionsOf(page, 'Type of total')).toEqual(['Text', 'Date', 'Number']);
    expect(await optionsOf(page, 'Type of items.price')).toEqual(['Text', 'Date', 'Number']);
    // Text, list and image have no format.
    expect(await page.getByRole('button', { name: 'Format of client_name', exact: true }).count()).toBe(0);

    // Date: the dialog shows the format set over the API; the keyboard opens it and saves.
    await tabTo(page, page.getByRole('button', { name: 'Format of due', exact: true }));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Format of due' });
    const pattern = dialog.getByRole('textbox', { name: 'Date format', exact: true });
    expect(await pattern.inputValue()).toBe('DD/MM/YYYY');
    await pattern.fill('D MMMM YYYY');
    await dialog.getByText('24 December 2026').waitFor();
    await expectAccessible(page);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect((await variable(id, 'due')).format).toBe('D MMMM YYYY');

    // Number: type, then style, currency and decimals.
    await variables.getByRole('combobox', { name: 'Type of total', exact: true }).selectOption({ label: 'Number' });
    await waitUntil(async () => (await variable(id, 'total')).type === 'number', 'total to become a number');
    await page.getByRole('button', { name: 'Format of total', exact: true }).click();
    const numberDialog = page.getByRole('dialog', { name: 'Format of total' });
    await numberDialog.getByRole('combobox', { name: 'Style', exact: true }).selectOption({ label: 'Currency' });
    await numberDialog.getByRole('textbox', { name: 'Currency', exact: true }).fill('EUR');
    await numberDialog.getByRole('spinbutton', { name: 'Decimals', exact: true }).fill('2');
    await numberDialog.getByRole('button', { name: 'Save', exact: true }).click();
    await numberDialog.waitFor({ state: 'detached' });
    expect((await variable(id, 'total')).format).toEqual({ style: 'currency', currency: 'EUR', minimum_fraction_digits: 2, maximum_fraction_digits: 2 });
    await variables.getByText('Currency EUR, 2 decimals (€1,234.50)').waitFor();

    // A list field: its own type and format.
    await variables.getByRole('combobox', { name: 'Type of items.price', exact: true }).selectOption({ label: 'Number' });
    await waitUntil(async () => (await variable(id, 'items')).field_types?.price === 'number', 'items.price to become a number');
    await page.getByRole('button', { name: 'Format of items.price', exact: true }).click();
    const fieldDialog = page.getByRole('dialog', { name: 'Format of items.price' });
    await fieldDialog.getByRole('spinbutton', { name: 'Decimals', exact: true }).fill('1');
    await fieldDialog.getByRole('button', { name: 'Save', exact: true }).click();
    await fieldDialog.waitFor({ state: 'detached' });
    expect((await variable(id, 'items')).field_formats?.price).toEqual({ style: 'decimal', minimum_fraction_digits: 1, maximum_fraction_digits: 1 });

    // Escape closes a dialog without saving.
    await page.getByRole('button', { name: 'Format of due', exact: true }).click();
    await page.getByRole('dialog', { name: 'Format of due' }).getByRole('textbox', { name: 'Date format' }).fill('YYYY');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect((await variable(id, 'due')).format).toBe('D MMMM YYYY');

    // Locale: saved at once; the examples follow it.
    await page.getByRole('combobox', { name: 'Locale', exact: true }).selectOption('de-DE');
    await waitUntil(async () => (await template(id)).locale === 'de-DE', 'the locale to be saved');
    await variables.getByText('Currency EUR, 2 decimals (1.234,50 €)').waitFor();
    await variables.getByText('D MMMM YYYY (24 Dezember 2026)').waitFor();
    await expectAccessible(page);
  });

  it('management: an upload lands on the new template (UAT badge); rename, download, copy the id, delete', async () => {
    const page = await signedInPage('/templates?is_uat=true');
    await page
      .getByLabel('Template file', { exact: true })
      .setInputFiles({ name: 'Letter.html', mimeType: 'text/html', buffer: Buffer.from('<p>Dear {name},</p>') });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('heading', { name: 'Letter', exact: true, level: 1 }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    expect(new URL(page.url()).search).toBe('?is_uat=true');
    expect((await template(id, true)).name).toBe('Letter');
    await page.getByText('UAT', { exact: true }).waitFor();
    await expectAccessible(page);

    // The first page as uploaded, once the worker has rendered it: an image the page holds itself.
    await page.getByText('Preview of the first page', { exact: true }).click();
    const firstPage = page.getByRole('img', { name: 'First page of Letter as uploaded, with its tags' });
    await firstPage.waitFor();
    expect(await firstPage.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await firstPage.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBeGreaterThan(100);

    await page.getByRole('button', { name: 'Rename', exact: true }).click();
    const nameField = page.getByRole('textbox', { name: 'Template name', exact: true });
    expect(await nameField.inputValue()).toBe('Letter');
    await nameField.fill('Letter 2027');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { name: 'Letter 2027', exact: true, level: 1 }).waitFor();
    expect((await template(id, true)).name).toBe('Letter 2027');

    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download template', exact: true }).click()]);
    expect(file.suggestedFilename()).toBe('Letter 2027.docx');
    expect(
      readFileSync((await file.path())!)
        .subarray(0, 2)
        .toString(),
    ).toBe('PK');

    await page.getByRole('button', { name: 'Copy template ID', exact: true }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(id);

    await page.getByRole('button', { name: 'Delete template', exact: true }).click();
    const confirm = page.getByRole('dialog');
    await confirm.getByText('Documents made from it stay readable').waitFor();
    await expectAccessible(page);
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/templates' && url.search === '?is_uat=true');
    expect((await client.call('GET', `/api/v1/templates/${id}?is_uat=true`)).status).toBe(404);
    expect(await page.getByRole('link', { name: 'Letter 2027', exact: true }).count()).toBe(0);
  });

  it('"Call it from code": the copied curl command, run as it is, makes a ready document; the client snippet names the template', async () => {
    const id = (await client.uploadTemplate(orderDocx, 'Order.docx')).id;
    await client.call('PATCH', `/api/v1/templates/${id}/variables`, {
      variables: [
        { name: 'due', type: 'date' },
        { name: 'total', type: 'number' },
      ],
    });
    const page = await signedInPage(`/templates/${id}`);
    const panel = page.getByRole('region', { name: 'Call it from code' });
    await panel.waitFor();
    const copies = panel.getByRole('button', { name: 'Copy', exact: true });
    expect(await copies.count()).toBe(2);

    await tabTo(page, copies.first(), 150);
    await page.keyboard.press('Enter');
    await panel.getByText('Copied to the clipboard.').first().waitFor();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(id);
    const created = JSON.parse(
      execFileSync('bash', ['-c', `${curl} --silent --show-error`], { encoding: 'utf8', env: { PATH: process.env.PATH, DOCGEN_API_KEY: org.apiKey } }),
    ) as { id: string; status: string };
    expect(created.status).toBe('queued');
    let document: { status: string; error_message?: string } = created;
    await waitUntil(
      async () => {
        document = (await client.call('GET', `/api/v1/documents/${created.id}`)).body as { status: string; error_message?: string };
        return document.status === 'ready' || document.status === 'failed';
      },
      'the curl document to finish',
      90_000,
    );
    expect(document).toMatchObject({ status: 'ready' });

    await copies.nth(1).click();
    await waitUntil(async () => (await page.evaluate(() => navigator.clipboard.readText())) !== curl, 'the client snippet on the clipboard');
    const snippet = await page.evaluate(() => navigator.clipboard.readText());
    expect(snippet).toContain("from '@docgen/client'");
    expect(snippet).toContain(`"template_id": "${id}"`);
    expect(snippet).toContain('"due": "2026-12-24"');
    await expectAccessible(page);
  });

  it('history: pages with Load more, a Status filter, and refreshes itself when a bulk job of the page finishes', async () => {
    const id = (await client.uploadTemplate(buildDocx({ body: paragraph('Hello {name}') }), 'Greeting.docx')).id;
    const made: string[] = [];
    for (let i = 0; i < 25; i++) {
      const input = i % 8 === 0 ? {} : { name: `Person ${i}` };
      made.push((await client.call('POST', '/api/v1/documents', { template_id: id, input_json: input, output_format: 'docx' })).body.id);
    }
    await waitUntil(
      async () => {
        const all = (await client.call('GET', `/api/v1/documents?template_id=${id}&limit=100`)).body.items as { status: string }[];
        return all.length === 25 && all.every((d) => d.status === 'ready' || d.status === 'failed');
      },
      'the 25 documents to finish',
      120_000,
    );
    const page = await signedInPage(`/templates/${id}`);
    const history = page.getByRole('table', { name: 'History' });
    const rows = history.locator('tbody > tr');
    await waitUntil(async () => (await rows.count()) === 20, 'the first page of history');
    await page.getByRole('button', { name: 'Load more', exact: true }).click();
    await waitUntil(async () => (await rows.count()) === 25, 'the second page of history');
    expect(await page.getByRole('button', { name: 'Load more', exact: true }).count()).toBe(0);

    await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption('failed');
    await waitUntil(async () => (await rows.count()) === 4, 'only the failed documents');
    expect(await history.getByText('Missing required token "name"').count()).toBe(4);
    await expectAccessible(page);
    await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption('');
    // Back to all: the pages already loaded are kept.
    await waitUntil(async () => (await rows.count()) === 25, 'all statuses again');

    // A bulk job started here: its rows join the history with no reload or click.
    const csv = ['name', 'Ada', 'Grace'].join('\n');
    await page.getByLabel('Spreadsheet', { exact: true }).setInputFiles({ name: 'rows.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Start bulk job', exact: true }).click();
    await page.getByText('2 of 2 rows').waitFor({ timeout: 90_000 });
    await page.getByRole('link', { name: 'Download ZIP', exact: true }).waitFor({ timeout: 90_000 });
    // The 25 rows loaded so far and the two new ones, with no reload and no click.
    await waitUntil(async () => (await rows.count()) === 27, 'the bulk rows in the history');
    const newest = (await client.call('GET', `/api/v1/templates/${id}/documents?limit=2`)).body.items as { id: string; status: string }[];
    expect(newest.every((d) => !made.includes(d.id) && d.status === 'ready')).toBe(true);
    await waitUntil(async () => (await rows.first().textContent())!.includes('ready'), 'the newest row ready');
    await history.getByRole('button', { name: 'View input', exact: true }).first().click();
    await history.getByText(/"(Ada|Grace)"/).waitFor();
  });

  it("validation: plain words beside each field, every problem listed, required marked, blanks refused; the API's errors reach the fields", async () => {
    const id = (await client.uploadTemplate(orderDocx, 'Order.docx')).id;
    await client.call('PATCH', `/api/v1/templates/${id}/variables`, {
      variables: [
        { name: 'due', type: 'date' },
        { name: 'total', type: 'number' },
        { name: 'items.price', type: 'number' },
        { name: 'logo', required: false },
      ],
    });
    const page = await signedInPage(`/templates/${id}`);
    const field = (name: string) => page.getByRole('tabpanel', { name: 'Form' }).getByLabel(name, { exact: true });
    const description = (name: string) =>
      field(name).evaluate((el) =>
        (el.getAttribute('aria-describedby') ?? '')
          .split(' ')
          .map((ref) => document.getElementById(ref)?.textContent ?? '')
          .join(' ')
          .trim(),
      );
    const invalid = async (name: string) => (await field(name).getAttribute('aria-invalid')) === 'true';

    // Nothing made up: no 0 for a price, no today for a date.
    await field('client_name').waitFor();
    expect(await field('due').inputValue()).toBe('');
    expect(await field('total').inputValue()).toBe('');
    expect(await field('price').inputValue()).toBe('');
    // Required fields are marked (and announced as required); the optional logo is not.
    expect(await field('client_name').evaluate((el) => (el as HTMLInputElement).required)).toBe(true);
    expect(await field('logo').evaluate((el) => (el as HTMLInputElement).required)).toBe(false);
    expect(await page.getByRole('tabpanel', { name: 'Form' }).getByText('*', { exact: true }).count()).toBeGreaterThan(4);

    const documentsBefore = (await client.call('GET', `/api/v1/templates/${id}/documents`)).body.items.length as number;
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Not sent' });
    await alert.waitFor();
    expect(await invalid('client_name')).toBe(true);
    expect(await description('client_name')).toBe('Required: enter a value');
    expect(await description('due')).toBe('Enter a date like 2026-12-24');
    expect(await description('total')).toBe('Enter a number like 1234.50');
    expect(await description('price')).toBe('Enter a number like 1234.50');
    expect(await description('description')).toBe('Required: enter a value');
    expect(await invalid('logo')).toBe(false);
    // Every problem, in plain words, once each.
    const listed = await alert.getByRole('listitem').allTextContents();
    expect(listed.sort()).toEqual(
      [
        'client_name: Required: enter a value',
        'due: Enter a date like 2026-12-24',
        'total: Enter a number like 1234.50',
        'items[0].description: Required: enter a value',
        'items[0].price: Enter a number like 1234.50',
      ].sort(),
    );
    expect(await alert.textContent()).not.toMatch(/Instance|pattern|property/);
    // The first field to fix has the focus.
    expect(await field('client_name').evaluate((el) => el === document.activeElement)).toBe(true);
    await expectAccessible(page);
    await shot(page, 'template-validation');
    expect((await client.call('GET', `/api/v1/templates/${id}/documents`)).body.items.length).toBe(documentsBefore);

    // A blank (spaces) is still blank; a fixed field loses its message at once.
    await field('client_name').fill('   ');
    expect(await invalid('client_name')).toBe(true);
    await field('client_name').fill('Ada');
    await waitUntil(async () => !(await invalid('client_name')), 'client_name to be valid');
    expect(await field('client_name').getAttribute('aria-describedby')).toBeNull();

    // The API's errors (§9): types changed by a colleague after the page loaded reach the fields.
    await field('due').fill('2026-12-24');
    await field('total').fill('12');
    await field('description').fill('Engine');
    await field('price').fill('3');
    await waitUntil(async () => (await alert.count()) === 0, 'the alert to go once everything is fixed');
    await client.call('PATCH', `/api/v1/templates/${id}/variables`, {
      variables: [
        { name: 'client_name', type: 'date' },
        { name: 'items.description', type: 'number' },
      ],
    });
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'The document failed' });
    await failed.waitFor({ timeout: 60_000 });
    expect(await failed.getByRole('listitem').count()).toBe(2);
    await waitUntil(async () => (await invalid('client_name')) && (await invalid('description')), 'the API errors beside their fields');
    expect(await description('client_name')).toMatch(/client_name/);
  });

  it('"Use this input" takes the author to the form', async () => {
    const id = (await client.uploadTemplate(buildDocx({ body: paragraph('Hello {name}') }), 'Hello.docx')).id;
    const created = (await client.call('POST', '/api/v1/documents', { template_id: id, input_json: { name: 'Ada' }, output_format: 'docx' })).body;
    const page = await signedInPage(`/templates/${id}`, { width: 390, height: 700 });
    const use = page.getByRole('table', { name: 'History' }).getByRole('button', { name: 'Use this input', exact: true });
    await use.scrollIntoViewIfNeeded();
    await use.click();
    const heading = page.getByRole('heading', { name: 'Generate a document' });
    await waitUntil(
      async () =>
        heading.evaluate((el) => {
          const box = el.getBoundingClientRect();
          return box.top >= -1 && box.bottom <= window.innerHeight;
        }),
      'the form in view',
      5_000,
    );
    expect(await page.getByLabel('name', { exact: true }).inputValue()).toBe('Ada');
    expect(created.id).toEqual(expect.any(String));
  });

  it('fits 390 px without sideways scrolling', async () => {
    const id = (await client.uploadTemplate(orderDocx, 'A long template name that has to wrap on a phone.docx')).id;
    const page = await signedInPage(`/templates/${id}`, { width: 390, height: 844 });
    await page.getByRole('region', { name: 'Call it from code' }).waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    await shot(page, 'template-page-390');
    await expectAccessible(page);
  });
});
