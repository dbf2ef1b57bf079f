// The template page's versions (API.md §12, §14 "works with versions"), the "Choose a file
// first" alerts, bulk `File names` and object variables in the Form, driven by role and name
// in Chromium against the real services.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { apiClient, buildDocx, paragraph, repoRoot, startStack, type ApiClient, type Stack } from '@docgen/testing';
import { docxText } from '../support';
import { horizontalOverflow, launchBrowser, seriousViolations, signedInPage as openSignedIn, tabTo, type OpenedContext } from './browser';
import { createUser } from './people';

jest.setTimeout(240_000);

const screenshotDir = process.env.DOCGEN_UPDATE_SCREENSHOTS === '1' ? path.join(repoRoot, 'docs', 'ui') : path.join(tmpdir(), 'docgen-ui-screenshots');
mkdirSync(screenshotDir, { recursive: true });

const letterV1 = buildDocx({ body: paragraph('Dear {name}') });
/** Version 2 adds a required variable: publishing it would refuse inputs version 1 accepts. */
const letterV2 = buildDocx({ body: [paragraph('Dear {name},'), paragraph('you owe {amount}')].join('') });
const docxFile = (name: string, buffer: Buffer) => ({ name, mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', buffer });

describe('template versions, file alerts, bulk file names and object variables in a real browser against the real services', () => {
  let stack: Stack;
  let client: ApiClient;
  let browser: Browser;
  let base: string;
  let author: { email: string; password: string };
  const contexts: OpenedContext[] = [];

  beforeAll(async () => {
    // One warm converter: these tests render little, and a machine shared by many starts it sooner.
    stack = await startStack({ env: { CONVERTER_POOL_SIZE: '1' } });
    base = stack.gateways[0]!.url;
    const org = await stack.organization();
    client = apiClient(base, org.apiKey);
    author = await createUser(stack.database.url, org.organizationId, 'author@example.com', 'member');
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

  const signedInPage = (next: string, viewport = { width: 1280, height: 900 }, colorScheme: 'light' | 'dark' = 'light') =>
    openSignedIn(browser, contexts, base, author, next, { viewport, colorScheme, acceptDownloads: true, timeoutMs: 30_000 });

  const expectAccessible = async (page: Page) => expect(await seriousViolations(page)).toEqual([]);
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true, caret: 'initial' });
  const focused = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? '');

  /** The JSON body of the next request the page sends to `pathEnd` by POST, once `action` ran. */
  async function bodyOfNext(page: Page, pathEnd: RegExp, action: () => Promise<void>): Promise<Record<string, unknown>> {
    const sent = page.waitForRequest((request: Request) => request.method() === 'POST' && pathEnd.test(new URL(request.url()).pathname));
    await action();
    return JSON.parse((await sent).postData() ?? '{}') as Record<string, unknown>;
  }

  async function newTemplate(file: Buffer, filename: string, isUat = false): Promise<string> {
    const res = await client.postFile('/api/v1/templates', file, filename, isUat ? { is_uat: 'true' } : {});
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${JSON.stringify(res.body)}`);
    return (res.body as { id: string }).id;
  }

  it('uploads a draft, tries it in the Form, JSON and live preview, publishes it past a breaking change, and rolls back', async () => {
    const id = await newTemplate(letterV1, 'Letter.docx');
    const page = await signedInPage(`/templates/${id}`);
    const table = page.getByRole('table', { name: 'Versions', exact: true });
    const row = (version: number) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: String(version), exact: true }) });
    await row(1).getByText('published').waitFor();
    expect(await row(1).getByRole('button').count()).toBe(0);

    // Upload without a file: an alert, which goes as soon as a file is chosen (§14).
    const fileField = page.getByLabel('New version file', { exact: true });
    const uploadButton = page.getByRole('button', { name: 'Upload new version', exact: true });
    await uploadButton.click();
    const missing = page.getByRole('alert').filter({ hasText: 'Choose a .docx file first.' });
    await missing.waitFor();
    await fileField.setInputFiles(docxFile('Letter v2.docx', letterV2));
    await missing.waitFor({ state: 'detached' });

    // The keyboard uploads it: a draft row, by the person signed in.
    await tabTo(page, uploadButton);
    await page.keyboard.press('Enter');
    await page.getByText('Version 2 is a draft').waitFor();
    await row(2).getByText('draft').waitFor();
    expect(await row(2).textContent()).toContain('author@example.com');
    expect(await fileField.inputValue()).toBe('');
    expect((await client.call('GET', `/api/v1/templates/${id}`)).body).toMatchObject({ version: 1, draft_version: 2 });
    await expectAccessible(page);

    // Try it, by keyboard: the page says which version, the form follows its variables.
    const tryButton = row(2).getByRole('button', { name: 'Try this version', exact: true });
    await tabTo(page, tryButton);
    // The live preview asks for version 2 (a request for the published one may still be on its way, so wait for the one that matters).
    const previewOfVersion2 = page.waitForRequest(
      (request: Request) =>
        request.method() === 'POST' && /\/templates\/[^/]+\/preview$/.test(new URL(request.url()).pathname) && request.postDataJSON()?.template_version === 2,
    );
    await page.keyboard.press('Enter');
    await page.getByText('Trying version 2').waitFor();
    expect(await tryButton.getAttribute('aria-pressed')).toBe('true');
    expect(await focused(page)).toBe('Generate a document');
    await previewOfVersion2;
    const form = page.getByRole('tabpanel', { name: 'Form' });
    // The variables panel shows the tried version's variables too.
    const variables = page.getByRole('table', { name: 'Variables' });
    await variables.getByRole('combobox', { name: 'Type of amount', exact: true }).waitFor();
    await page.getByText('Version 2’s variables, as you try it').waitFor();
    await form.getByLabel('name', { exact: true }).fill('Ada');
    await form.getByLabel('amount', { exact: true }).fill('12 EUR');
    const live = page.getByRole('region', { name: 'Live preview', exact: true });
    await live.getByRole('img', { name: /of version 2/ }).waitFor();

    const generate = page.getByRole('button', { name: 'Generate', exact: true });
    const tried = await bodyOfNext(page, /\/documents$/, () => generate.click());
    expect(tried).toMatchObject({ template_version: 2, input_json: { name: 'Ada', amount: '12 EUR' } });
    await page.getByRole('status').getByText('ready').waitFor({ timeout: 90_000 });
    const [made] = (await client.call('GET', `/api/v1/templates/${id}/documents?limit=1`)).body.items as { template_version: number }[];
    expect(made!.template_version).toBe(2);

    // The JSON tab checks against version 2 and generates with it too.
    await page.getByRole('tab', { name: 'JSON', exact: true }).click();
    await page.getByRole('textbox', { name: 'Input JSON' }).getByText('"amount"').waitFor();
    await page.getByText('The input matches the template’s schema.').waitFor();
    expect((await bodyOfNext(page, /\/documents$/, () => generate.click())).template_version).toBe(2);

    // And back to the published version: nothing pins a version any more.
    await page.getByRole('tab', { name: 'Form', exact: true }).click();
    await page.getByRole('button', { name: 'Back to the published version', exact: true }).click();
    await page.getByText('Trying version 2').waitFor({ state: 'detached' });
    expect(await form.getByLabel('amount', { exact: true }).count()).toBe(0);
    expect(await variables.getByRole('combobox', { name: 'Type of amount', exact: true }).count()).toBe(0);
    expect(await tryButton.getAttribute('aria-pressed')).toBe('false');
    const published = await bodyOfNext(page, /\/documents$/, () => generate.click());
    expect(published).not.toHaveProperty('template_version');
    expect(published.input_json).toEqual({ name: 'Ada' });

    // Publishing it is a breaking change: the list in an alert, the focus on it, Publish anyway next.
    // (The keyboard reached this row's Try this version above; Publish is the Tab before it.)
    await row(2).getByRole('button', { name: 'Publish', exact: true }).focus();
    await page.keyboard.press('Enter');
    const refused = page.getByRole('alert').filter({ hasText: 'Version 2 was not published' });
    await refused.waitFor();
    expect(await refused.getByRole('listitem').allTextContents()).toEqual(['New required variable "amount"']);
    expect(await refused.textContent()).not.toContain('force');
    await expectAccessible(page);
    await page
      .getByRole('region', { name: 'Versions', exact: true })
      .screenshot({ path: path.join(screenshotDir, 'template-versions-breaking.png'), caret: 'initial' });
    expect((await client.call('GET', `/api/v1/templates/${id}`)).body.version).toBe(1);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Publish anyway');
    const forced = await bodyOfNext(page, /\/versions\/2\/publish$/, () => page.keyboard.press('Enter'));
    expect(forced).toEqual({ force: true });
    await page.getByText('Published version 2: documents use it from now on.').waitFor();
    await refused.waitFor({ state: 'detached' });
    expect((await client.call('GET', `/api/v1/templates/${id}`)).body.version).toBe(2);

    // The page follows the published version: its variables, the form, the table.
    await variables.getByRole('combobox', { name: 'Type of amount', exact: true }).waitFor();
    await form.getByLabel('amount', { exact: true }).waitFor();
    await row(2).getByText('published').waitFor();
    await row(1).getByText('superseded').waitFor();

    // A rollback is publishing the older version (it only drops a variable: not breaking).
    await row(1).getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published version 1: documents use it from now on.').waitFor();
    await variables.getByRole('combobox', { name: 'Type of amount', exact: true }).waitFor({ state: 'detached' });
    expect(await form.getByLabel('amount', { exact: true }).count()).toBe(0);
    expect((await client.call('GET', `/api/v1/templates/${id}`)).body).toMatchObject({ version: 1 });
    await expectAccessible(page);
  });

  it("while a draft is tried the variables panel edits the draft's variables: an optional new variable publishes without a breaking change", async () => {
    const id = await newTemplate(letterV1, 'Reminder.docx');
    expect((await client.postFile(`/api/v1/templates/${id}/versions`, letterV2, 'Reminder v2.docx')).status).toBe(201);
    const page = await signedInPage(`/templates/${id}`);
    const row2 = page.getByRole('table', { name: 'Versions', exact: true }).getByRole('row').filter({ hasText: 'draft' });
    await row2.getByRole('button', { name: 'Try this version', exact: true }).click();
    const required = page.getByRole('table', { name: 'Variables' }).getByRole('checkbox', { name: 'Required amount', exact: true });
    await required.uncheck();
    const version = async (n: number) =>
      (await client.call('GET', `/api/v1/templates/${id}/versions/${n}`)).body as { variables: { name: string; required: boolean }[] };
    await page.getByText('Saved.').waitFor();
    expect((await version(2)).variables.find((v) => v.name === 'amount')).toMatchObject({ required: false });
    expect((await client.call('GET', `/api/v1/templates/${id}`)).body).toMatchObject({ version: 1 });
    // The form follows: amount is no longer required.
    expect(
      await page
        .getByRole('tabpanel', { name: 'Form' })
        .getByLabel('amount', { exact: true })
        .evaluate((el) => (el as HTMLInputElement).required),
    ).toBe(false);

    await row2.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published version 2: documents use it from now on.').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect((await client.call('GET', `/api/v1/templates/${id}`)).body).toMatchObject({ version: 2 });
    // Published, it is no longer tried: the page is back on the published version.
    await page.getByText('Trying version 2').waitFor({ state: 'detached' });
  });

  it('promotes a UAT template to production in a dialog, and past a breaking change with Publish anyway', async () => {
    const id = await newTemplate(letterV1, 'Offer.docx', true);
    const page = await signedInPage(`/templates/${id}?is_uat=true`);
    const promote = page.getByRole('button', { name: 'Promote to production', exact: true });
    await tabTo(page, promote, 120);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Promote “Offer” to production?' });
    await dialog.getByText('Production gets version 1').waitFor();
    await expectAccessible(page);
    // Cancel has the focus; the next Tab is Promote.
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Promote');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Promoted: “Offer” in Production is now at version 1.').waitFor();
    const production = (await client.call('GET', '/api/v1/templates')).body.items.find((t: { name: string }) => t.name === 'Offer') as {
      id: string;
      version: number;
      promoted_from: unknown;
    };
    expect(production).toMatchObject({ version: 1, promoted_from: { template_id: id, version: 1 } });

    // UAT moves on to a version production's callers would fail with.
    expect((await client.postFile(`/api/v1/templates/${id}/versions?is_uat=true`, letterV2, 'Offer v2.docx')).status).toBe(201);
    expect((await client.call('POST', `/api/v1/templates/${id}/versions/2/publish?is_uat=true`, { force: true })).status).toBe(200);
    await page.reload();
    await promote.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Promote', exact: true }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Not promoted to production' });
    await refused.waitFor();
    expect(await refused.getByRole('listitem').allTextContents()).toEqual(['New required variable "amount"']);
    const forced = await bodyOfNext(page, /\/promote$/, () => refused.getByRole('button', { name: 'Publish anyway', exact: true }).click());
    expect(forced).toEqual({ force: true });
    await page.getByText('Promoted: “Offer” in Production is now at version 2.').waitFor();
    expect((await client.call('GET', `/api/v1/templates/${production.id}`)).body).toMatchObject({ version: 2, promoted_from: { template_id: id, version: 2 } });
    await page.getByRole('link', { name: 'Open it in Production', exact: true }).click();
    await page.waitForURL((url) => url.pathname === `/templates/${production.id}` && url.search === '');
    await page.getByText('Version 2 was promoted from UAT').waitFor();
    expect(await page.getByRole('button', { name: 'Promote to production' }).count()).toBe(0);
  });

  it('the Versions section is axe-clean in light and dark, and nothing of it is cut off at 390 px', async () => {
    const id = await newTemplate(letterV1, 'A letter with a name long enough to wrap on a phone.docx');
    expect((await client.postFile(`/api/v1/templates/${id}/versions`, letterV2, 'v2.docx')).status).toBe(201);
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const viewport of [
        { width: 1280, height: 900 },
        { width: 390, height: 844 },
      ]) {
        const page = await signedInPage(`/templates/${id}`, viewport, colorScheme);
        const section = page.getByRole('region', { name: 'Versions', exact: true });
        const table = section.getByRole('table', { name: 'Versions', exact: true });
        await table.getByText('draft').waitFor();
        await expectAccessible(page);
        expect(await horizontalOverflow(page)).toBe(0);
        // Every control and cell of the section lies inside the viewport (nothing hidden in a sideways scroll).
        const outside = await section.evaluate((element) =>
          Array.from(element.querySelectorAll('button, input, th, td, caption'))
            .filter((el) => !el.closest('thead'))
            .filter((el) => {
              const box = el.getBoundingClientRect();
              return box.width > 0 && (box.left < 0 || box.right > document.documentElement.clientWidth + 0.5);
            })
            .map((el) => el.textContent),
        );
        expect(outside).toEqual([]);
        if (colorScheme === 'light') await shot(page, viewport.width === 390 ? 'template-versions-390' : 'template-versions');
      }
    }
  });

  it('"Choose a file first" alerts go when a file is chosen or a later action succeeds', async () => {
    const page = await signedInPage('/templates');
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const missingTemplate = page.getByRole('alert').filter({ hasText: 'Choose a .docx or .html file first.' });
    await missingTemplate.waitFor();
    await page.getByLabel('Template file', { exact: true }).setInputFiles(docxFile('Receipt.docx', buildDocx({ body: paragraph('Receipt for {name}') })));
    await missingTemplate.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('heading', { name: 'Receipt', exact: true, level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Start bulk job', exact: true }).click();
    const missingSheet = page.getByRole('alert').filter({ hasText: 'Choose a .csv or .xlsx file first.' });
    await missingSheet.waitFor();
    // A later success elsewhere on the page (a rename) ends it too.
    await page.getByRole('button', { name: 'Rename', exact: true }).click();
    await page.getByRole('textbox', { name: 'Template name', exact: true }).fill('Receipt 2027');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { name: 'Receipt 2027', exact: true, level: 1 }).waitFor();
    await missingSheet.waitFor({ state: 'detached' });
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('names the bulk ZIP entries with File names: each row’s values, a repeat numbered -2', async () => {
    const id = await newTemplate(buildDocx({ body: paragraph('Invoice {invoice_number} for {client_name}') }), 'Invoice.docx');
    const page = await signedInPage(`/templates/${id}`);
    await page.getByRole('radio', { name: 'DOCX', exact: true }).check();
    const csv = ['invoice_number,client_name', '1001,Ada Lovelace', '1002,Grace', '1001,Ada Lovelace'].join('\n');
    await page.getByLabel('Spreadsheet', { exact: true }).setInputFiles({ name: 'rows.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('textbox', { name: 'File names', exact: true }).fill('{invoice_number}-{client_name}');
    await page.getByRole('button', { name: 'Start bulk job', exact: true }).click();
    const zip = page.getByRole('link', { name: 'Download ZIP', exact: true });
    await zip.waitFor({ timeout: 120_000 });
    const [file] = await Promise.all([page.waitForEvent('download'), zip.click()]);
    const entries = execFileSync('unzip', ['-Z1', (await file.path())!], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .sort();
    expect(entries).toEqual(['1001-Ada Lovelace-2.docx', '1001-Ada Lovelace.docx', '1002-Grace.docx', 'errors.xlsx'].sort());
    const jobs = (await client.call('GET', '/api/v1/bulk-jobs/')).body.items as { template_id: string; file_name: string }[];
    expect(jobs.find((job) => job.template_id === id)).toMatchObject({ file_name: '{invoice_number}-{client_name}' });
  });

  it('an object variable ({client.address.city}) is a required Form field per member, enforced, and generates a ready document', async () => {
    const id = await newTemplate(buildDocx({ body: [paragraph('Client {client.name}'), paragraph('City {client.address.city}')].join('') }), 'Client.docx');
    const page = await signedInPage(`/templates/${id}`);
    const form = page.getByRole('tabpanel', { name: 'Form' });
    const city = form.getByRole('textbox', { name: 'client.address.city', exact: true });
    const name = form.getByRole('textbox', { name: 'client.name', exact: true });
    await city.waitFor();
    expect(await city.evaluate((el) => (el as HTMLInputElement).required)).toBe(true);
    expect(await name.evaluate((el) => (el as HTMLInputElement).required)).toBe(true);

    const before = (await client.call('GET', `/api/v1/templates/${id}/documents`)).body.items.length as number;
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Not sent' });
    await alert.waitFor();
    expect((await alert.getByRole('listitem').allTextContents()).sort()).toEqual([
      'client.address.city: Required: enter a value',
      'client.name: Required: enter a value',
    ]);
    expect(await city.getAttribute('aria-invalid')).toBe('true');
    expect(await name.evaluate((el) => el === document.activeElement)).toBe(true);
    expect((await client.call('GET', `/api/v1/templates/${id}/documents`)).body.items.length).toBe(before);

    await name.fill('ACME');
    await city.fill('Lyon');
    await page.getByRole('radio', { name: 'DOCX', exact: true }).check();
    await alert.waitFor({ state: 'detached' });
    const body = await bodyOfNext(page, /\/documents$/, () => page.getByRole('button', { name: 'Generate', exact: true }).click());
    expect(body.input_json).toEqual({ client: { name: 'ACME', address: { city: 'Lyon' } } });
    await page.getByRole('status').getByText('ready').waitFor({ timeout: 90_000 });
    const [made] = (await client.call('GET', `/api/v1/templates/${id}/documents?limit=1`)).body.items as { id: string }[];
    const docx = (await client.call('GET', `/api/v1/documents/${made!.id}/download?format=docx`)).raw;
    expect(docxText(docx)).toContain('City Lyon');
    await expectAccessible(page);
  });
});
