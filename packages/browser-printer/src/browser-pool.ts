import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { PrintTimeoutError, PrinterUnavailableError } from './errors';

/**
 * Debian's headless shell (package chromium-headless-shell) when it is installed, else the
 * full browser (package chromium). Both are the same Blink and print the same pages; the
 * shell prints twice as many per second for two thirds of the CPU, because the full
 * browser's headless mode starts a print-compositor process for every print
 * (docs/BENCHMARKS.md, "HTML printing: the headless shell"). The shell's binary, not
 * /usr/bin/chromium-headless-shell: that is a script that runs it as a child instead of
 * exec'ing it, so the browser would not be the process Playwright started and stops.
 */
export function defaultChromiumPath(exists: (path: string) => boolean = existsSync): string {
  return exists(HEADLESS_SHELL_PATH) ? HEADLESS_SHELL_PATH : FULL_CHROMIUM_PATH;
}
const HEADLESS_SHELL_PATH = '/usr/lib/chromium/chromium-headless-shell';
const FULL_CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Debian's Chromium, headless, with nothing it does not need for printing: no GPU, no
 * threaded compositor, no background or component networking, no remote fonts, and every
 * request it would still make sent to a proxy that does not exist (a second fence behind
 * the page's request routing). No sandbox: the render worker runs in a container without
 * user namespaces; JavaScript is off and nothing is loaded, which is what keeps the page
 * harmless. Without the compositor thread a loaded page is not drawn for a screen nobody
 * sees: a print costs about a third less CPU, the PDF is the same (docs/BENCHMARKS.md,
 * "HTML printing: no threaded compositor").
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-threaded-compositing',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--no-pings',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-extensions',
  '--disable-remote-fonts',
  '--dns-prefetch-disable',
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
];

export interface PrintRequest {
  /** A complete HTML document, printed as Chromium prints a page (CSS @page wins over A4). */
  html: string;
  /** Chromium's headerTemplate/footerTemplate: HTML with classes pageNumber and totalPages. */
  headerTemplate?: string;
  footerTemplate?: string;
}

export interface PrintOptions {
  /** Epoch ms: waiting for a page and printing must end by then (else the pool's timeoutMs). */
  deadlineAt?: number;
  /** Called when a page takes the document, after any wait. */
  onStarted?: () => void;
}

export type PrinterEvent =
  | { type: 'started'; pages: number }
  | { type: 'exited'; expected: boolean }
  | { type: 'recycled'; prints: number }
  | { type: 'restart_failed'; error: string }
  | { type: 'page_freshened'; prints: number };

export interface BrowserPoolOptions {
  /** Pages printing at once (each in its own browser context). */
  pages: number;
  timeoutMs: number;
  /** Restart the browser after this many documents, so slow leaks never accumulate. */
  recycleAfter?: number;
  /** Give a page a fresh window after this many documents (default 100; Infinity: never), see freshen(). */
  freshenPageAfter?: number;
  executablePath?: string;
  onEvent?: (event: PrinterEvent) => void;
}

/** One launched browser and what the pool knows of it. */
interface Run {
  browser: Browser;
  /** Its process, killed when it does not close in time. */
  pid: number;
  /**
   * The process group Playwright started it in (its own, led by the browser or by a wrapper
   * script that did not exec it), unless it is ours: killed with it.
   */
  group?: number;
  /** Prints under way on its pages. */
  printing: number;
  /** Documents it has printed. */
  printed: number;
  /** The pool asked it to close (a recycle, a page it could not open, or close()): its exit is expected. */
  stopping: boolean;
  /** It did not close in time and was killed: its exit is reported as unexpected. */
  killed?: boolean;
}

interface Slot {
  run: Run;
  context: BrowserContext;
  page: Page;
  /** The page's own DevTools session (Page domain on), and its main frame, where each document is written. */
  session: CDPSession;
  frameId: string;
  /** Documents printed since the page last had a fresh window. */
  printsSinceFresh: number;
}

const FRESHEN_PAGE_AFTER = 100;
/** A navigation to about:blank takes milliseconds; a page that takes longer is replaced, not waited for. */
const FRESHEN_TIMEOUT_MS = 5_000;

/**
 * Every document carries this policy as its first element: inline styles and data: images
 * only, whatever slips past the page's request routing. (Serving each document from an
 * https address through the routing, with the policy as a header, cost Chromium about three
 * times the CPU per document in bench:conversion; a document written on about:blank is
 * just as unable to read file: URLs.)
 */
const CONTENT_SECURITY_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:";
const POLICY_META = `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`;
const DOCTYPE = '<!doctype html>';

/** The document with the policy first: after its doctype (kept first, so the page is not in quirks mode), else at the very start. */
export function withContentSecurityPolicy(html: string): string {
  const hasDoctype = html.slice(0, DOCTYPE.length).toLowerCase() === DOCTYPE;
  return hasDoctype ? `${html.slice(0, DOCTYPE.length)}${POLICY_META}${html.slice(DOCTYPE.length)}` : `${POLICY_META}${html}`;
}

interface Waiter {
  resolve: (slot: Slot) => void;
  reject: (error: Error) => void;
}

/**
 * One warm Chromium with a few pages, each in a context with JavaScript off and every
 * request aborted (data: URIs are not requests and still load). A page prints one
 * document at a time; one that overruns its time is thrown away with its context and
 * replaced. After `recycleAfter` documents the browser gets a successor, launched while it
 * goes on printing; once the successor's pages are open they take over, and the old browser
 * is closed when its last print ends (so a recycle never leaves documents waiting for a
 * launch, and runs at most two browsers). A browser that dies, or cannot open a page in
 * time, is replaced at once, its pages no longer handed out; one asked to close that does
 * not within 5 s is killed.
 */
export class BrowserPrinterPool {
  /** The browser whose pages are handed out. */
  private current: Run | undefined;
  private idle: Slot[] = [];
  private readonly waiters: Waiter[] = [];
  /** Browsers no longer handed out, closed once their last print ends. */
  private readonly retiring = new Set<Run>();
  /** The first browser being launched by start(). */
  private starting: Promise<unknown> | undefined;
  /** A successor being launched (for a recycle, or for a browser that went). */
  private renewing: Promise<void> | undefined;
  /** Cuts short a wait between two launch attempts: the pool closed, or the browser in use went. */
  private wake: AbortController | undefined;
  private closing: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: BrowserPoolOptions) {
    const { pages, freshenPageAfter } = options;
    if (!Number.isInteger(pages) || pages < 1) throw new RangeError(`pages must be a whole number of at least 1, not ${pages}`);
    if (freshenPageAfter !== undefined && freshenPageAfter !== Infinity && !(Number.isInteger(freshenPageAfter) && freshenPageAfter >= 1))
      throw new RangeError(`freshenPageAfter must be a whole number of at least 1 or Infinity, not ${freshenPageAfter}`);
  }

  /** Launches Chromium and opens the pages; should that fail, the pool is closed for good (nothing left running) and the error thrown. */
  async start(): Promise<void> {
    if (this.closed) throw new PrinterUnavailableError('The printer is closed; make a new one');
    try {
      const launching = this.launch();
      this.starting = launching;
      this.install(await launching);
    } catch (error) {
      await this.close();
      throw error;
    } finally {
      this.starting = undefined; // not kept: it holds the first browser
    }
  }

  /** True while the browser whose pages are handed out is connected (the render worker's health and metrics). */
  get alive(): boolean {
    return this.current?.browser.isConnected() ?? false;
  }

  async print(request: PrintRequest, options: PrintOptions = {}): Promise<Buffer> {
    const slot = await this.acquire();
    const timeoutMs = options.deadlineAt === undefined ? this.options.timeoutMs : Math.min(this.options.timeoutMs, options.deadlineAt - Date.now());
    // Out of time while waiting for a page: hand it on untouched.
    if (timeoutMs <= 0) {
      this.handOut(slot);
      throw new PrintTimeoutError(this.options.timeoutMs);
    }
    try {
      options.onStarted?.();
    } catch (error) {
      this.handOut(slot); // untouched: the next document takes it
      throw error;
    }
    const { run } = slot;
    run.printing += 1;
    let healthy = false;
    try {
      const pdf = await within(printOn(slot, request), timeoutMs, () => new PrintTimeoutError(timeoutMs));
      healthy = true;
      return pdf;
    } catch (error) {
      if (error instanceof PrintTimeoutError) throw error;
      if (this.closed || !run.browser.isConnected()) throw new PrinterUnavailableError(`Chromium stopped while printing: ${(error as Error).message}`);
      throw error;
    } finally {
      run.printing -= 1;
      this.release(slot, healthy);
    }
  }

  /** Closes every browser of the pool at once (prints under way fail as unavailable), after any launch under way. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.closed = true;
    this.wake?.abort();
    for (const waiter of this.waiters.splice(0)) waiter.reject(new PrinterUnavailableError('The printer is shutting down'));
    await Promise.all([this.starting?.catch(() => undefined), this.renewing]);
    const runs = [...this.retiring, ...(this.current ? [this.current] : [])];
    this.current = undefined;
    this.idle = [];
    this.retiring.clear();
    await Promise.all(runs.map(stop));
  }

  private acquire(): Promise<Slot> {
    if (this.closed) return Promise.reject(new PrinterUnavailableError('The printer is shutting down'));
    const slot = this.idle.shift();
    if (slot) return Promise.resolve(slot);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** A page back from a document: reused if it printed, replaced (in its context) if not. */
  private release(slot: Slot, healthy: boolean): void {
    const { run } = slot;
    run.printed += 1;
    if (this.closed) return;
    if (run !== this.current) {
      if (this.retiring.has(run) && run.printing === 0) this.retire(run);
      return;
    }
    // One recycle at a time: the next waits until the last one's browser has closed.
    const { recycleAfter } = this.options;
    if (recycleAfter && run.printed >= recycleAfter && this.retiring.size === 0) this.renew();
    if (!healthy) {
      this.replace(slot);
      return;
    }
    slot.printsSinceFresh += 1;
    if (slot.printsSinceFresh < (this.options.freshenPageAfter ?? FRESHEN_PAGE_AFTER)) {
      this.handOut(slot);
      return;
    }
    const prints = slot.printsSinceFresh;
    void freshen(slot, Math.min(this.options.timeoutMs, FRESHEN_TIMEOUT_MS)).then(
      () => {
        this.emit({ type: 'page_freshened', prints });
        this.handOut(slot);
      },
      () => this.replace(slot),
    );
  }

  /** A new context and page in place of one that failed a print (or could not be freshened). */
  private replace(slot: Slot): void {
    if (this.closed || slot.run !== this.current) return;
    void slot.context.close().catch(() => undefined);
    // A browser that cannot open a page, or hangs instead, is replaced whole (its prints would
    // otherwise all time out, and its pages never come back).
    void within(openSlot(slot.run), OPEN_PAGE_TIMEOUT_MS, () => new PrinterUnavailableError('Chromium did not open a page in time')).then(
      (fresh) => this.handOut(fresh),
      () => this.lose(slot.run),
    );
  }

  private handOut(slot: Slot): void {
    if (slot.run !== this.current) return;
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(slot);
    else this.idle.push(slot);
  }

  /** A browser with its pages open (closed again, and the error thrown, should any page fail to open or the pool close meanwhile). */
  private async launch(): Promise<{ run: Run; slots: Slot[] }> {
    const browser = await chromium.launch({
      executablePath: this.options.executablePath ?? process.env.CHROMIUM_PATH ?? defaultChromiumPath(),
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: LAUNCH_TIMEOUT_MS,
      // Playwright would close the browser itself on these signals, under the prints a service's
      // graceful shutdown lets finish (and the pool would launch a successor): close() does it.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    const run: Run = { browser, pid: 0, printing: 0, printed: 0, stopping: false };
    browser.on('disconnected', () => this.onDisconnected(run));
    try {
      if (this.closed) throw new PrinterUnavailableError('The printer is shutting down');
      // A browser that hangs while opening its pages is given up like one that cannot start, not waited for forever.
      const opening = browserPid(browser).then((pid) => {
        run.pid = pid;
        const group = processGroupOf(pid);
        if (group !== processGroupOf(process.pid)) run.group = group;
        return Promise.all(Array.from({ length: this.options.pages }, () => openSlot(run)));
      });
      const slots = await within(opening, LAUNCH_TIMEOUT_MS, () => new PrinterUnavailableError('Chromium did not open its pages in time'));
      if (this.closed) throw new PrinterUnavailableError('The printer is shutting down');
      return { run, slots };
    } catch (error) {
      await stop(run);
      throw error;
    }
  }

  /** The launched browser's pages are handed out from now on; the one before is retired. */
  private install({ run, slots }: { run: Run; slots: Slot[] }): void {
    const previous = this.current;
    this.current = run;
    this.idle = [];
    if (previous) this.retire(previous);
    for (const slot of slots) this.handOut(slot);
    if (previous) this.emit({ type: 'recycled', prints: previous.printed });
    this.emit({ type: 'started', pages: slots.length });
  }

  /** Closes a browser no longer handed out once its last print has ended. */
  private retire(run: Run): void {
    this.retiring.add(run);
    if (run.printing === 0) void stop(run).then(() => this.retiring.delete(run));
  }

  /** A browser that cannot serve: its pages are no longer handed out, and a successor is launched. */
  private lose(run: Run): void {
    if (run !== this.current) return;
    this.current = undefined;
    this.idle = [];
    this.retire(run);
    this.wake?.abort(); // a successor waiting to try again after a failed launch tries at once
    this.renew();
  }

  private onDisconnected(run: Run): void {
    const expected = (this.closed || run.stopping) && !run.killed;
    // A helper that outlived the browser (a hung renderer) would hold Playwright's close for 30 s:
    // what is left of the group goes now, while its number cannot yet be anyone else's. Its
    // close's deadline kills nothing by these numbers from now on, whoever gets them next.
    if (run.group) killGroup(run.group);
    run.pid = 0;
    run.group = undefined;
    this.retiring.delete(run);
    this.lose(run);
    this.emit({ type: 'exited', expected });
  }

  /** The pool's state is settled before an event goes out, and a listener that throws cannot unsettle it. */
  private emit(event: PrinterEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // a log line lost; the pool goes on
    }
  }

  /**
   * Launches a successor (unless one is being launched), retried with backoff while Chromium
   * will not start; the browser in use, if any, prints on meanwhile.
   */
  private renew(): void {
    if (this.closed || this.renewing) return;
    this.renewing = (async () => {
      for (let attempt = 0; !this.closed; attempt++) {
        try {
          const launched = await this.launch();
          // Cleared before the hand-over, so a browser that dies right after it is replaced in turn.
          this.renewing = undefined;
          this.install(launched);
          return;
        } catch (error) {
          if (this.closed) break;
          this.wake = new AbortController(); // before the event: a listener that closes the pool wakes this wait
          this.emit({ type: 'restart_failed', error: (error as Error).message });
          await sleep(retryDelayMs(attempt), undefined, { ref: false, signal: this.wake.signal }).catch(() => undefined);
          this.wake = undefined;
        }
      }
      this.renewing = undefined;
    })();
  }
}

/** For Chromium to start, and again for it to open its pages. */
const LAUNCH_TIMEOUT_MS = 30_000;
/** A context and page in place of one that failed: milliseconds, when the browser is well. */
const OPEN_PAGE_TIMEOUT_MS = 5_000;

/** `promise`, or the error `expired` makes should it not settle within `ms`. */
function within<T>(promise: Promise<T>, ms: number, expired: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(expired()), ms);
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Half a second after the first failed launch, doubling up to 30 s. */
const retryDelayMs = (attempt: number) => Math.min(30_000, 500 * 2 ** attempt);

/**
 * A browser asked to close is killed if it has not closed by then. Playwright kills one that
 * does not answer its close only after its own 30 s, and a retired browser still open holds
 * the next recycle (and close()) until it has gone.
 */
const CLOSE_TIMEOUT_MS = 5_000;

async function stop(run: Run): Promise<void> {
  run.stopping = true;
  const deadline = setTimeout(() => {
    run.killed = kill(run);
  }, CLOSE_TIMEOUT_MS);
  await run.browser.close().catch(() => undefined);
  clearTimeout(deadline);
}

/** The browser and its helpers (its process group), else the browser alone. True if a kill was sent. */
function kill({ group, pid }: Run): boolean {
  return (group !== undefined && killGroup(group)) || (pid !== 0 && signal(pid));
}

/** True if the group had a process left to kill. */
const killGroup = (group: number) => signal(-group);

function signal(target: number): boolean {
  try {
    process.kill(target, 'SIGKILL');
    return true;
  } catch {
    return false; // gone already, or no such group
  }
}

function processGroupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) || undefined;
  } catch {
    return undefined;
  }
}

/** The browser's process id: Playwright's launch does not tell it, Chromium's SystemInfo does. */
async function browserPid(browser: Browser): Promise<number> {
  const session = await browser.newBrowserCDPSession();
  const { processInfo } = await session.send('SystemInfo.getProcessInfo');
  await session.detach();
  const pid = processInfo.find((info) => info.type === 'browser')?.id;
  if (!pid) throw new PrinterUnavailableError('Chromium did not tell its process id');
  return pid;
}

async function openSlot(run: Run): Promise<Slot> {
  const context = await run.browser.newContext({ javaScriptEnabled: false, serviceWorkers: 'block', acceptDownloads: false, offline: false });
  // data: URIs are no requests and never reach this; everything else the page asks for is refused.
  await context.route('**/*', (route) => route.abort('blockedbyclient'));
  const page = await context.newPage();
  const session = await context.newCDPSession(page);
  await session.send('Page.enable');
  const { frameTree } = await session.send('Page.getFrameTree');
  return { run, context, page, session, frameId: frameTree.frame.id, printsSinceFresh: 0 };
}

async function printOn(slot: Slot, request: PrintRequest): Promise<Buffer> {
  const { page, session, frameId } = slot;
  // The document replaces the page's previous one, written into it as Playwright's setContent
  // does (its URL stays about:blank) but by one DevTools call: setContent's own round trips and
  // script cost Chromium and the worker about 1–2 ms a print (docs/BENCHMARKS.md). Printed once
  // loaded (its data: images decoded), or failed at once should the page close or crash first
  // (a browser that dies is replaced and the render retried, not timed out).
  await Promise.all([loadOf(page, session), session.send('Page.setDocumentContent', { frameId, html: withContentSecurityPolicy(request.html) })]);
  const running = request.headerTemplate !== undefined || request.footerTemplate !== undefined;
  const pdf = await page.pdf({
    format: 'A4',
    preferCSSPageSize: true,
    printBackground: true,
    displayHeaderFooter: running,
    headerTemplate: request.headerTemplate ?? '<span></span>',
    footerTemplate: request.footerTemplate ?? '<span></span>',
  });
  return pdf;
}

/**
 * The page navigated to about:blank, which gives it a new window: each document is written
 * into the page's current window (setDocumentContent), and Chromium's CPU a print grows with
 * the documents one window has held (the letter: about 10 ms a print on a fresh page, 21 ms
 * after 1,200, back to 10 once navigated; no DOM or heap counter shows what is kept). A
 * navigation costs about two prints, so once every 100 documents adds a fifth of a
 * millisecond a print (docs/BENCHMARKS.md, "HTML printing: a fresh window"); a new context
 * would cost four times as much. Done once the load of this very navigation (its loaderId)
 * has fired: a load left over from the last document (a refused meta refresh ends on an
 * error page) is not taken for it, nor left for the next document's print.
 */
async function freshen(slot: Slot, timeoutMs: number): Promise<void> {
  const { page, session, frameId } = slot;
  const loadedLoaders = new Set<string>();
  let loaderLoaded: ((loaderId: string) => void) | undefined;
  const onLifecycle = (event: { frameId: string; loaderId: string; name: string }) => {
    if (event.frameId !== frameId || event.name !== 'load') return;
    loadedLoaders.add(event.loaderId);
    loaderLoaded?.(event.loaderId);
  };
  let timer: NodeJS.Timeout | undefined;
  let gone: (() => void) | undefined;
  session.on('Page.lifecycleEvent', onLifecycle);
  try {
    await session.send('Page.setLifecycleEventsEnabled', { enabled: true });
    const loaded = (async () => {
      const { loaderId, errorText } = await session.send('Page.navigate', { url: 'about:blank', frameId });
      if (errorText || !loaderId) throw new PrinterUnavailableError(`The page could not be given a fresh window: ${errorText ?? 'no new document'}`);
      if (loadedLoaders.has(loaderId)) return;
      await new Promise<void>((resolve) => {
        loaderLoaded = (id) => id === loaderId && resolve();
      });
    })();
    const stopped = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new PrintTimeoutError(timeoutMs)), timeoutMs);
      gone = () => reject(new PrinterUnavailableError('Chromium stopped while giving a page a fresh window'));
      page.once('close', gone);
      page.once('crash', gone);
    });
    await Promise.race([loaded, stopped]);
    await session.send('Page.setLifecycleEventsEnabled', { enabled: false });
  } finally {
    clearTimeout(timer);
    session.off('Page.lifecycleEvent', onLifecycle);
    if (gone) {
      page.off('close', gone);
      page.off('crash', gone);
    }
  }
  slot.printsSinceFresh = 0;
}

/**
 * The page's next load event. A page that closes or crashes first rejects it as unavailable:
 * the pool closes a page only between prints, so it is Chromium that went (its 'disconnected'
 * may come a moment later).
 */
function loadOf(page: Page, session: CDPSession): Promise<void> {
  return new Promise((resolve, reject) => {
    const gone = () => reject(new PrinterUnavailableError('Chromium stopped while loading the document'));
    page.once('close', gone);
    page.once('crash', gone);
    session.once('Page.loadEventFired', () => {
      page.off('close', gone);
      page.off('crash', gone);
      resolve();
    });
  });
}
