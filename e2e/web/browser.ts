import { readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

/** Debian's Chromium (scripts/bootstrap.sh installs it); Playwright downloads no browser here. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** Console errors, uncaught exceptions and CSP violations of a page: a working UI has none. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    const text = message.text();
    // Chrome logs every 4xx answer (GET /session before signing in, a rejected upload); the
    // UI shows those in words, so only other errors count.
    if (message.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(text))
      problems.push(`console on ${page.url()}: ${text}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // Says which element or file broke the policy (the console line alone does not).
  void page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(`CSP ${e.violatedDirective} by ${e.sourceFile}:${e.lineNumber} sample=${e.sample}`),
    ),
  );
  return problems;
}

/** A browser profile a test opened, with the problems its page had; a test file checks them and closes it. */
export interface OpenedContext {
  context: BrowserContext;
  problems: string[];
}

export interface PageOptions {
  viewport: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
  acceptDownloads?: boolean;
  /** Lets the page read and write the clipboard on this origin (the Copy buttons). */
  clipboardOrigin?: string;
  /** Playwright's default timeout for the page's actions. */
  timeoutMs: number;
}

/** A fresh browser profile with one page, recorded in `opened` with the problems the page will have. */
export async function watchedPage(browser: Browser, opened: OpenedContext[], { clipboardOrigin, timeoutMs, ...contextOptions }: PageOptions): Promise<Page> {
  const context = await browser.newContext(contextOptions);
  if (clipboardOrigin) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: clipboardOrigin });
  const page = await context.newPage();
  page.setDefaultTimeout(timeoutMs);
  opened.push({ context, problems: watchProblems(page) });
  return page;
}

/** Someone who signs in with email and password. */
export interface Person {
  email: string;
  password: string;
}

/** Signs in on /login and waits until the page is at `next` (a path, maybe with a query). */
export async function signIn(page: Page, base: string, person: Person, next: string): Promise<void> {
  await page.goto(`${base}/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email', { exact: true }).fill(person.email);
  await page.getByLabel('Password', { exact: true }).fill(person.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === next.split('?')[0]);
}

/** A fresh, watched page (see watchedPage) on which `person` has signed in and landed at `next`. */
export async function signedInPage(browser: Browser, opened: OpenedContext[], base: string, person: Person, next: string, options: PageOptions): Promise<Page> {
  const page = await watchedPage(browser, opened, options);
  await signIn(page, base, person, next);
  return page;
}

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

/** Whether the page scrolls sideways (it must not at 390 px). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** Presses Tab until `target` has focus: proof that the keyboard alone reaches it. */
export async function tabTo(page: Page, target: Locator, maxPresses = 60): Promise<void> {
  for (let i = 0; i < maxPresses; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${target.toString()}`);
}

/**
 * Replaces the whole text of the JSON editor (CodeMirror) as a paste would: select all, then
 * one text insertion over the selection. Deleting first and then `fill` lost the new text now and
 * then (2 of 80 replacements in a loop): the fill landed while CodeMirror was still redrawing the
 * emptied editor, and the editor stayed empty.
 */
export async function replaceEditorText(page: Page, editor: Locator, text: string): Promise<void> {
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
  await waitUntil(async () => (await editor.textContent()) === text, `the editor to hold ${text}`, 10_000);
}

/** Polls until `check` holds or the deadline passes. */
export async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
