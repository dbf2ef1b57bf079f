import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  apiClient,
  buildDocx,
  makeTestCertificates,
  paragraph,
  repoRoot,
  startHttpsReceiver,
  startStack,
  type ApiClient,
  type HttpsReceiver,
  type SeededOrganization,
  type Stack,
} from '@docgen/testing';
import {
  horizontalOverflow,
  launchBrowser,
  replaceEditorText,
  seriousViolations,
  signIn as signInAt,
  tabTo,
  waitUntil,
  watchedPage,
  type OpenedContext,
} from './browser';
import { createUser } from './people';

// A whole stack and a browser: every test and hook here may take up to 4 minutes.
jest.setTimeout(240_000);

// DOCGEN_UPDATE_SCREENSHOTS=1 writes the screenshots docs/ui.md shows; otherwise they go to a temp folder.
const screenshotDir = process.env.DOCGEN_UPDATE_SCREENSHOTS === '1' ? path.join(repoRoot, 'docs', 'ui') : path.join(tmpdir(), 'docgen-ui-screenshots');
mkdirSync(screenshotDir, { recursive: true });

const invoiceDocx = buildDocx({
  body: [paragraph('Invoice for {client_name}'), paragraph('Due {due}'), paragraph('{#items}'), paragraph('Item: {description}'), paragraph('{/items}')].join(
    '',
  ),
});
const receiptDocx = buildDocx({
  body: [paragraph('Receipt for {client}'), paragraph('Total {total}'), paragraph('{#paid}Paid in full{/paid}'), paragraph('{%logo}')].join(''),
});
const brokenDocx = buildDocx({ body: [paragraph('Hello {client_name'), paragraph('{/items}')].join('') });

describe('web UI in a real browser against the real services', () => {
  let stack: Stack;
  let org: SeededOrganization;
  let client: ApiClient;
  let receiver: HttpsReceiver;
  let browser: Browser;
  let base: string;
  let admin: { email: string; password: string };
  let templateId: string;
  const contexts: OpenedContext[] = [];

  beforeAll(async () => {
    const certificates = makeTestCertificates();
    receiver = await startHttpsReceiver(certificates, () => 200);
    const outbound = { OUTBOUND_ALLOW_PRIVATE: 'true', NODE_EXTRA_CA_CERTS: certificates.caPath, WEBHOOK_RETRY_BASE_MS: '200' };
    stack = await startStack({ env: outbound });
    await stack.start('webhook-dispatcher');
    base = stack.gateways[0]!.url;
    org = await stack.organization();
    client = apiClient(base, org.apiKey);
    admin = await createUser(stack.database.url, org.organizationId, 'ada@example.com', 'admin');
    templateId = (await client.uploadTemplate(invoiceDocx, 'Invoice.docx')).id;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await stack?.close();
  });

  /** A fresh browser profile; its console errors and CSP violations are checked at the end. */
  /** A fresh browser profile; its console errors and CSP violations are checked at the end. */
  const newPage = (viewport = { width: 1100, height: 900 }) => watchedPage(browser, contexts, { viewport, acceptDownloads: true, timeoutMs: 20_000 });

  const signIn = (page: Page, email: string, password: string, next = '/templates') => signInAt(page, base, { email, password }, next);

  async function expectAccessible(page: Page) {
    expect(await seriousViolations(page)).toEqual([]);
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true, caret: 'initial' });

  async function download(page: Page, name: string): Promise<Buffer> {
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name, exact: true }).click()]);
    return readFileSync((await file.path())!);
  }

  const pdfText = (pdf: Buffer) => {
    const file = path.join(tmpdir(), `docgen-ui-${Date.now()}.pdf`);
    writeFileSync(file, pdf);
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  };

  let page: Page;

  async function variableOf(name: string, id = templateId): Promise<{ type: string; required: boolean }> {
    const template = (await client.call('GET', `/api/v1/templates/${id}`)).body;
    return (template.variables as { name: string; type: string; required: boolean }[]).find((v) => v.name === name)!;
  }

  it('a deep link without a session leads to sign-in; the keyboard alone signs in and comes back', async () => {
    page = await newPage();
    await page.goto(`${base}/templates/${templateId}`);
    await page.waitForURL((url) => url.pathname === '/login');
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    // A fresh profile is a cold cache: the first paint must still come within a second.
    const paintOf = (p: Page) => p.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Infinity);
    let firstPaint = await paintOf(page);
    if (firstPaint >= 1_000) {
      // Eight engineers share two cores: one more cold profile before calling it slow.
      const again = await newPage();
      await again.goto(`${base}/login`);
      await again.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      firstPaint = Math.min(firstPaint, await paintOf(again));
    }
    process.stderr.write(`first contentful paint of /login from a cold cache: ${Math.round(firstPaint)} ms\n`);
    expect(firstPaint).toBeLessThan(1_000);
    await expectAccessible(page);
    await shot(page, 'login');

    await page.getByLabel('Email', { exact: true }).fill('ada@example.com');
    await page.getByLabel('Password', { exact: true }).fill('wrong password!');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid email or password' }).waitFor();

    await page.getByLabel('Email', { exact: true }).fill('');
    await page.getByLabel('Password', { exact: true }).fill('');
    await tabTo(page, page.getByLabel('Email', { exact: true }));
    await page.keyboard.type(admin.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(admin.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Invoice', exact: true, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/templates/${templateId}`);

    // A reload of the deep link keeps the page (the gateway answers it with the app).
    await page.reload();
    await page.getByRole('heading', { name: 'Invoice', exact: true, level: 1 }).waitFor();
  });

  it('templates: switch environment, a rejected upload shows every problem, an upload opens the new template and adds a link', async () => {
    await page.goto(`${base}/templates`);
    await page.getByRole('heading', { name: 'Templates', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Invoice', exact: true }).waitFor();
    // §8 names may be looked up without `exact`: then they must still name one control.
    expect(await page.getByRole('heading', { name: 'Templates' }).count()).toBe(1);

    const rejected = await client.postFile('/api/v1/templates', brokenDocx, 'broken.docx');
    expect(rejected.status).toBe(422);
    await page.getByLabel('Template file', { exact: true }).setInputFiles({ name: 'broken.docx', mimeType: 'application/octet-stream', buffer: brokenDocx });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    for (const error of rejected.body.errors as { message: string }[]) expect(await alert.textContent()).toContain(error.message);
    await expectAccessible(page);

    const environment = page.getByRole('radiogroup', { name: 'Environment' });
    await environment.getByRole('radio', { name: 'UAT', exact: true }).check();
    await page.getByText('No templates in this environment yet').waitFor();
    expect(await page.getByRole('link', { name: 'Invoice', exact: true }).count()).toBe(0);
    await page
      .getByLabel('Template file', { exact: true })
      .setInputFiles({ name: 'Letter.html', mimeType: 'text/html', buffer: Buffer.from('<p>Dear {name},</p>') });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    // The author lands on the new template (§14), and finds it in the list on the way back.
    await page.getByRole('heading', { name: 'Letter', exact: true, level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Back to the UAT list', exact: true }).click();
    await page.getByRole('link', { name: 'Letter', exact: true }).waitFor();
    const uat = await client.call('GET', '/api/v1/templates?is_uat=true');
    expect(uat.body.items.map((t: { name: string }) => t.name)).toEqual(['Letter']);

    await environment.getByRole('radio', { name: 'Production', exact: true }).check();
    await page.getByRole('link', { name: 'Invoice', exact: true }).waitFor();
    await shot(page, 'templates');
  });

  it('template page: variables saved, form mode generates a PDF whose text is the input, history lists it', async () => {
    await page.getByRole('link', { name: 'Invoice', exact: true }).click();
    await page.getByRole('heading', { name: 'Invoice', exact: true, level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: 'Templates' }).count()).toBe(1);
    const variables = page.getByRole('table', { name: 'Variables' });
    await variables.getByRole('combobox', { name: 'Type of due', exact: true }).selectOption({ label: 'Date' });
    await waitUntil(async () => (await variableOf('due')).type === 'date', 'the type change to be saved');
    await page.getByRole('checkbox', { name: 'Required due', exact: true }).uncheck();
    await waitUntil(async () => (await variableOf('due')).required === false, 'the required change to be saved');
    await page.getByRole('checkbox', { name: 'Required due', exact: true }).check();
    await waitUntil(async () => (await variableOf('due')).required === true, 'the required change to be saved');
    await expectAccessible(page);

    await page.getByRole('tab', { name: 'Form', exact: true }).click();
    await page.getByLabel('client_name', { exact: true }).fill('Ada Lovelace');
    const due = page.getByLabel('due', { exact: true });
    expect(await due.getAttribute('type')).toBe('date');
    await due.fill('2026-12-24');
    await page.getByLabel('description', { exact: true }).first().fill('Analytical engine');
    await page.getByRole('button', { name: 'Add row', exact: true }).click();
    await page.getByLabel('description', { exact: true }).nth(1).fill('Difference engine');
    await page.getByRole('radiogroup', { name: 'Output format' }).getByRole('radio', { name: 'Both', exact: true }).check();
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    // The document's progress is its status text; the one progressbar §8 names is the bulk job's.
    await page
      .getByRole('status')
      .filter({ hasText: /queued|rendering|ready/ })
      .waitFor();
    expect(await page.getByRole('progressbar').count()).toBe(0);

    await page.getByRole('status').filter({ hasText: 'ready' }).waitFor({ timeout: 60_000 });
    const text = pdfText(await download(page, 'Download PDF'));
    expect(text).toContain('Invoice for Ada Lovelace');
    expect(text).toContain('Due 2026-12-24');
    expect(text).toContain('Item: Analytical engine');
    expect(text).toContain('Item: Difference engine');
    const docx = await download(page, 'Download DOCX');
    expect(docx.subarray(0, 2).toString()).toBe('PK');

    const history = page.getByRole('table', { name: 'History' });
    await history.getByRole('row').nth(1).getByText('ready').waitFor();
    await history.getByRole('button', { name: 'View input', exact: true }).first().click();
    await history.getByText('"Difference engine"').waitFor();
    await expectAccessible(page);
    await shot(page, 'template');
  });

  it('JSON mode: schema errors show before sending; Use this input fills it; the keyboard alone generates', async () => {
    const before = (await client.call('GET', `/api/v1/templates/${templateId}/documents`)).body.items.length as number;
    await page.getByRole('tab', { name: 'JSON', exact: true }).click();
    const editor = page.getByRole('textbox', { name: 'Input JSON' });
    await editor.waitFor();
    expect(await editor.textContent()).toContain('Ada Lovelace');
    await replaceEditorText(page, editor, '{"client_name": "Grace", "due": "next week", "items": "none"}');
    const problems = page.getByRole('alert').filter({ hasText: 'does not match the template' });
    await problems.waitFor();
    expect(await problems.textContent()).toMatch(/items/);
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await shot(page, 'template-json');
    expect((await client.call('GET', `/api/v1/templates/${templateId}/documents`)).body.items.length).toBe(before);

    await page.getByRole('table', { name: 'History' }).getByRole('button', { name: 'Use this input', exact: true }).first().click();
    await waitUntil(async () => (await editor.textContent())!.includes('Difference engine'), 'the editor to hold the used input');
    await problems.waitFor({ state: 'detached' });

    // Keyboard only: the Form tab, a field, the output format and Generate.
    await tabTo(page, page.getByRole('tab', { name: 'JSON', exact: true }));
    await page.keyboard.press('ArrowLeft');
    await tabTo(page, page.getByLabel('client_name', { exact: true }));
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Grace Hopper');
    await tabTo(page, page.getByRole('radio', { name: 'Both', exact: true }));
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('radio', { name: 'PDF', exact: true }).isChecked()).toBe(true);
    await tabTo(page, page.getByRole('button', { name: 'Generate', exact: true }));
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'ready' }).waitFor({ timeout: 60_000 });
    expect(pdfText(await download(page, 'Download PDF'))).toContain('Invoice for Grace Hopper');
  });

  it('bulk: the sample spreadsheet names the tokens; a CSV runs with progress; the ZIP holds each row', async () => {
    const sample = (await download(page, 'Download sample spreadsheet')).toString('utf8');
    expect(sample.split(/\r?\n/)[0]).toBe('client_name,due,items');
    await page.getByRole('radiogroup', { name: 'Output format' }).getByRole('radio', { name: 'PDF', exact: true }).check();
    const csv = [
      'client_name,due,items',
      'Ada,2026-12-24,"[{""description"": ""one""}]"',
      'Grace,2026-12-25,"[{""description"": ""two""}]"',
      'Edsger,not a date,"[]"',
    ].join('\n');
    await page.getByLabel('Spreadsheet', { exact: true }).setInputFiles({ name: 'rows.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Start bulk job', exact: true }).click();
    const progress = page.getByRole('progressbar', { name: 'Bulk progress' });
    await progress.waitFor();
    await page.getByText('3 of 3 rows').waitFor({ timeout: 90_000 });
    expect(await progress.getAttribute('aria-valuetext')).toBe('3 of 3 rows');
    const zip = path.join(tmpdir(), `docgen-ui-bulk-${Date.now()}.zip`);
    writeFileSync(zip, await download(page, 'Download ZIP'));
    const entries = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n').sort();
    expect(entries).toEqual(['errors.xlsx', 'row-0002.pdf', 'row-0003.pdf']);
    await expectAccessible(page);
  });

  it('Boolean and Number variables get a checkbox and a number input; a failed render shows its error; history is newest first; Use this input fills the form', async () => {
    const receiptId = (await client.uploadTemplate(receiptDocx, 'Receipt.docx')).id as string;
    await page.goto(`${base}/templates/${receiptId}`);
    await page.getByRole('heading', { name: 'Receipt', exact: true, level: 1 }).waitFor();
    const variables = page.getByRole('table', { name: 'Variables' });
    // A section with nothing inside ({#paid}…{/paid}) is found as a list; it may be switched to Boolean.
    await variables.getByRole('combobox', { name: 'Type of paid', exact: true }).selectOption({ label: 'Boolean' });
    await waitUntil(async () => (await variableOf('paid', receiptId)).type === 'boolean', 'paid to become a boolean');
    await variables.getByRole('combobox', { name: 'Type of total', exact: true }).selectOption({ label: 'Number' });
    await waitUntil(async () => (await variableOf('total', receiptId)).type === 'number', 'total to become a number');
    await variables.getByRole('checkbox', { name: 'Required logo', exact: true }).uncheck();
    await waitUntil(async () => (await variableOf('logo', receiptId)).required === false, 'logo to become optional');

    await page.getByRole('tab', { name: 'Form', exact: true }).click();
    const paid = page.getByRole('checkbox', { name: 'paid', exact: true });
    const total = page.getByLabel('total', { exact: true });
    expect(await total.getAttribute('type')).toBe('number');
    await page.getByLabel('client', { exact: true }).fill('Ada');
    await paid.check();
    await total.fill('42.5');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'ready' }).waitFor({ timeout: 60_000 });
    const documents = async () =>
      (await client.call('GET', `/api/v1/templates/${receiptId}/documents`)).body.items as { status: string; input_json: Record<string, unknown> }[];
    expect((await documents())[0]!.input_json).toEqual({ client: 'Ada', paid: true, total: 42.5 });
    expect(pdfText(await download(page, 'Download PDF'))).toContain('Paid in full');

    // The schema accepts any URL; the worker cannot fetch this one, so the document fails with words.
    await page.getByLabel('logo', { exact: true }).fill('http://127.0.0.1:1/logo.png');
    await page.getByRole('button', { name: 'Generate', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'failed' }).waitFor({ timeout: 60_000 });
    const failure = (await documents())[0]!;
    expect(failure.status).toBe('failed');
    const alert = page.getByRole('alert').filter({ hasText: 'could not be fetched' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain((failure as unknown as { error_message: string }).error_message);
    await expectAccessible(page);

    // History, newest first: the failure above the ready one, times descending.
    const rows = page.getByRole('table', { name: 'History' }).getByRole('row');
    await rows.nth(2).waitFor();
    await rows.nth(1).getByText('could not be fetched').waitFor();
    expect(await rows.nth(1).getByText('failed', { exact: true }).count()).toBe(1);
    expect(await rows.nth(2).getByText('ready', { exact: true }).count()).toBe(1);
    const times = await rows.locator('time').evaluateAll((els) => els.map((el) => el.getAttribute('datetime')!));
    expect(times).toEqual([...times].sort().reverse());

    // Use this input on the ready one puts its values back in the Form fields.
    await page.getByLabel('client', { exact: true }).fill('Someone else');
    await paid.uncheck();
    await total.fill('1');
    await rows.nth(2).getByRole('button', { name: 'Use this input', exact: true }).click();
    await waitUntil(async () => (await page.getByLabel('client', { exact: true }).inputValue()) === 'Ada', 'the form to hold the used input');
    expect(await paid.isChecked()).toBe(true);
    expect(await total.inputValue()).toBe('42.5');
    expect(await page.getByLabel('logo', { exact: true }).inputValue()).toBe('');
  });

  it('a purged document shows as purged in the history, with no download links and no input to reuse', async () => {
    const created = await client.call('POST', '/api/v1/documents', {
      template_id: templateId,
      input_json: { client_name: 'Grace', due: '2026-01-01', items: [] },
      output_format: 'pdf',
    });
    const id = created.body.id as string;
    await waitUntil(
      async () => ['ready', 'failed'].includes((await client.call('GET', `/api/v1/documents/${id}`)).body.status),
      'the document to finish',
      60_000,
    );
    // What the retention sweep leaves: the record, no files, no input.
    await stack.database.db.document.update({ where: { id }, data: { files: [], inputJson: {}, purgedAt: new Date() } });
    expect((await client.call('GET', `/api/v1/documents/${id}/download`)).status).toBe(410);

    await page.goto(`${base}/templates/${templateId}`);
    const purged = page.getByRole('table', { name: 'History' }).getByRole('row').filter({ hasText: 'Files removed' });
    await purged.waitFor();
    expect(await purged.getByText('purged', { exact: true }).count()).toBe(1);
    expect(await purged.getByRole('link').count()).toBe(0);
    expect(await purged.getByRole('button', { name: 'Use this input', exact: true }).isDisabled()).toBe(true);
    await expectAccessible(page);
  });

  it('developer settings: a new API key works once shown, Revoke asks first; a webhook test arrives and is logged', async () => {
    await page.getByRole('link', { name: 'Developer', exact: true }).click();
    await page.getByRole('heading', { name: 'Developer settings' }).waitFor();
    await page.getByLabel('Key name', { exact: true }).fill('ci pipeline');
    await page.getByLabel('Expires on', { exact: true }).fill('2030-01-31');
    await page.getByRole('button', { name: 'Create API key', exact: true }).click();
    const keyField = page.getByRole('textbox', { name: 'New API key' });
    await keyField.waitFor();
    expect(await keyField.getAttribute('readonly')).not.toBeNull();
    const key = await keyField.inputValue();
    expect(key).toMatch(/^svc_/);
    expect((await apiClient(base, key).call('GET', '/api/v1/templates')).status).toBe(200);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Copied|Ctrl\+C/ })
      .waitFor();

    await page.getByRole('row').filter({ hasText: 'ci pipeline' }).getByRole('button', { name: 'Revoke', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
    await waitUntil(async () => (await apiClient(base, key).call('GET', '/api/v1/templates')).status === 401, 'the revoked key to be refused');

    await page.getByLabel('Endpoint URL', { exact: true }).fill(`${receiver.url}/ui-hook`);
    await page.getByRole('button', { name: 'Add webhook', exact: true }).click();
    const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Test webhook', exact: true }).click();
    const [delivery] = await receiver.waitFor('/ui-hook', 1);
    expect(JSON.parse(delivery!.body).event).toBe('webhook.test');
    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    await deliveries.getByText('succeeded').waitFor({ timeout: 30_000 });
    expect(await deliveries.textContent()).toContain('200');
    await expectAccessible(page);
    await shot(page, 'developer');
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('No endpoints yet.').waitFor();
  });

  let member: { email: string; password: string };

  it('members: an added member gets a one-time password that signs in', async () => {
    await page.getByRole('link', { name: 'Members', exact: true }).click();
    await page.getByRole('heading', { name: 'Members', exact: true, level: 1 }).waitFor();
    await page.getByLabel('Email', { exact: true }).fill('grace@example.com');
    await page.getByRole('combobox', { name: 'Role' }).selectOption({ label: 'Member' });
    await page.getByRole('button', { name: 'Add member', exact: true }).click();
    const password = await page.getByRole('textbox', { name: 'Password', exact: true }).inputValue();
    expect(password.length).toBeGreaterThanOrEqual(12);
    member = { email: 'grace@example.com', password };
    await page.getByRole('rowheader', { name: 'grace@example.com' }).waitFor();
    expect(await page.getByLabel('Email').count()).toBe(1);
    expect(await page.getByLabel('Password').count()).toBe(1);
    await expectAccessible(page);
    await shot(page, 'members');
  });

  it('account: a member changes the password, signs out from any page, and signs in with the new one', async () => {
    const memberPage = await newPage();
    await signIn(memberPage, member.email, member.password, '/settings/account');
    expect(await memberPage.getByRole('link', { name: 'Developer', exact: true }).count()).toBe(0);
    await memberPage.getByLabel('Current password', { exact: true }).fill(member.password);
    await memberPage.getByLabel('New password', { exact: true }).fill('a much longer passphrase');
    await memberPage.getByRole('button', { name: 'Change password', exact: true }).click();
    await memberPage.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
    await expectAccessible(memberPage);
    await shot(memberPage, 'account');

    await memberPage.goto(`${base}/templates`);
    await memberPage.getByRole('button', { name: 'Sign out', exact: true }).click();
    await memberPage.waitForURL((url) => url.pathname === '/login');
    await memberPage.goto(`${base}/templates`);
    await memberPage.waitForURL((url) => url.pathname === '/login');
    await signIn(memberPage, member.email, 'a much longer passphrase');
    await memberPage.goto(`${base}/settings/developer`);
    await memberPage.getByRole('alert').filter({ hasText: 'admin role' }).waitFor();
  });

  it('at 390 px wide no page scrolls sideways or has a serious accessibility problem', async () => {
    const narrow = await newPage({ width: 390, height: 844 });
    await narrow.goto(`${base}/login`);
    await narrow.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await horizontalOverflow(narrow)).toBeLessThanOrEqual(0);
    await signIn(narrow, admin.email, admin.password);
    const pages: [string, string][] = [
      ['/templates', 'Templates'],
      [`/templates/${templateId}`, 'Invoice'],
      ['/settings/developer', 'Developer settings'],
      ['/settings/members', 'Members'],
      ['/settings/account', 'Account'],
    ];
    for (const [route, heading] of pages) {
      await narrow.goto(`${base}${route}`);
      await narrow.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor();
      if (route.startsWith('/templates/')) await narrow.getByRole('table', { name: 'History' }).waitFor();
      expect({ route, overflow: await horizontalOverflow(narrow) }).toEqual({ route, overflow: expect.any(Number) });
      expect(await horizontalOverflow(narrow)).toBeLessThanOrEqual(0);
      await expectAccessible(narrow);
    }
    await narrow.getByRole('button', { name: 'Sign out', exact: true }).click();
    await narrow.waitForURL((url) => url.pathname === '/login');
  });

  it('no page logged a console error or a Content-Security-Policy violation', () => {
    expect(contexts.flatMap((c) => c.problems)).toEqual([]);
  });
});
