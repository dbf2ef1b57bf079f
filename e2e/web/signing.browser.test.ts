import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { makeSigningCa, repoRoot, startStack, type Stack, type TestSigningCa } from '@docgen/testing';
import { horizontalOverflow, launchBrowser, seriousViolations, signedInPage, type OpenedContext } from './browser';
import { createUser } from './people';

jest.setTimeout(240_000);

const screenshotDir = process.env.DOCGEN_UPDATE_SCREENSHOTS === '1' ? path.join(repoRoot, 'docs', 'ui') : path.join(tmpdir(), 'docgen-ui-screenshots');
mkdirSync(screenshotDir, { recursive: true });

const DAY_MS = 86_400_000;

/** /settings/developer's signing certificate upload (API.md §14), in a real browser against the real services. */
describe('signing certificate upload in the web UI', () => {
  let stack: Stack;
  let browser: Browser;
  let base: string;
  let admin: { email: string; password: string };
  let ca: TestSigningCa;
  let files: string;

  beforeAll(async () => {
    ca = makeSigningCa();
    files = mkdtempSync(path.join(tmpdir(), 'docgen-ui-p12-'));
    stack = await startStack({ env: { SECRETS_KEY: randomBytes(32).toString('base64') }, workers: 0 });
    base = stack.gateways[0]!.url;
    const org = await stack.organization();
    admin = await createUser(stack.database.url, org.organizationId, 'grace@example.com', 'admin');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    ca?.cleanup();
    if (files) rmSync(files, { recursive: true, force: true });
  });

  const p12File = (name: string, bytes: Buffer) => {
    const file = path.join(files, name);
    writeFileSync(file, bytes);
    return file;
  };

  it('refuses a wrong password and an expired certificate in words, then shows subject, issuer and validity', async () => {
    const opened: OpenedContext[] = [];
    const page = await signedInPage(browser, opened, base, admin, '/settings/developer', { viewport: { width: 1100, height: 900 }, timeoutMs: 20_000 });
    await page.getByText('No signing certificate yet.').waitFor();

    const upload = page.getByRole('button', { name: 'Upload certificate', exact: true });
    await upload.click();
    await page.getByRole('alert').filter({ hasText: 'Choose a .p12 or .pfx file first.' }).waitFor();

    const good = ca.issue({ commonName: 'ACME Contracts GmbH' });
    const file = page.getByLabel('Signing certificate', { exact: true });
    const password = page.getByLabel('Certificate password', { exact: true });
    await file.setInputFiles(p12File('acme.p12', good.p12));
    await password.fill('not the password');
    await upload.click();
    await page.getByRole('alert').filter({ hasText: 'The password does not open this PKCS#12 file' }).waitFor();

    const expired = ca.issue({ notBefore: new Date(Date.now() - 60 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) });
    await file.setInputFiles(p12File('old.p12', expired.p12));
    await password.fill(expired.password);
    await upload.click();
    await page.getByRole('alert').filter({ hasText: 'The certificate expired on' }).waitFor();

    await file.setInputFiles(p12File('acme.p12', good.p12));
    await password.fill(good.password);
    await upload.click();
    const details = page.getByRole('definition');
    await page.getByText('Certificate uploaded: documents are now signed with it.').waitFor();
    await details.filter({ hasText: 'CN=ACME Contracts GmbH, O=docgen tests' }).waitFor();
    await details.filter({ hasText: 'CN=docgen test signing CA, O=docgen tests' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await password.inputValue()).toBe('');
    expect(await page.content()).not.toContain(good.password);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(screenshotDir, 'signing-certificate.png'), fullPage: true, caret: 'initial' });

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(screenshotDir, 'signing-certificate-narrow.png'), fullPage: true, caret: 'initial' });
    expect(opened.flatMap(({ problems }) => problems)).toEqual([]);
    await page.context().close();
  });
});
