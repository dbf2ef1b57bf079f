import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually, pdfText, pngDataUri, recordEvents, solidPng, startCanary, type Canary } from '@docgen/testing';
import { BrowserPrinterPool, defaultChromiumPath, withContentSecurityPolicy, type BrowserPoolOptions, type PrinterEvent } from './browser-pool';
import { PrintTimeoutError, PrinterUnavailableError } from './errors';

const page = (body: string, head = '') => `<!DOCTYPE html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

/** Every way a page could reach the network or run code, unsanitised: only the browser's own fence stops them here. */
function attacks(url: string): string[] {
  return [
    page('', `<link rel="stylesheet" href="${url}/link.css"><link rel="preload" as="image" href="${url}/preload.png">`),
    page(
      '<h1>x</h1>',
      `<style>@import url("${url}/import.css"); body { background: url("${url}/bg.png") } h1 { background-image: image-set("${url}/set.png" 1x) }</style>`,
    ),
    page('<p>x</p>', `<style>@font-face { font-family: X; src: url("${url}/font.woff2") } p { font-family: X }</style>`),
    page('', `<meta http-equiv="refresh" content="0; url=${url}/refresh">`),
    page('<img src="relative.png">', `<base href="${url}/base/">`),
    page(`<img src="${url}/img.png"><img srcset="${url}/srcset.png 2x" src="data:,">`),
    page(`<iframe src="${url}/iframe"></iframe><object data="${url}/object"></object><embed src="${url}/embed">`),
    page(`<svg><image href="${url}/svg-image.png" width="10" height="10"/></svg>`),
    page(`<script>fetch("${url}/script")</script><img src="data:," onerror="fetch('${url}/onerror')">`),
    page(`<video poster="${url}/poster.png"></video><audio src="${url}/audio.mp3" autoplay></audio>`),
    page(`<a href="${url}/link" ping="${url}/ping">link</a><img src="file:///etc/hostname">`),
  ];
}

describe('BrowserPrinterPool', () => {
  let canary: Canary;
  const { onEvent, next } = recordEvents<PrinterEvent>();
  let pool: BrowserPrinterPool;

  beforeAll(async () => {
    canary = await startCanary();
    pool = new BrowserPrinterPool({ pages: 2, timeoutMs: 15_000, recycleAfter: 5, onEvent });
    await pool.start();
  });

  afterAll(async () => {
    await pool.close();
    await canary.close();
  });

  it('prints HTML as a browser does, with CSS page size and margins', async () => {
    const pdf = await pool.print({ html: page('<h1>Hello printed world</h1>', '<style>@page { size: A5; margin: 10mm }</style>') });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdfText(pdf)).toContain('Hello printed world');
    expect(execFileSync('pdfinfo', ['-'], { input: pdf }).toString()).toMatch(/Page size:.*\(A5\)/);
  });

  it('makes no request and runs no script, whatever the HTML asks for', async () => {
    // A page that navigates away while printing (meta refresh) may fail to print; what counts is what reached the network.
    await Promise.all(attacks(canary.url).map((html) => pool.print({ html }).catch(() => undefined)));
    // Anything deferred (refresh, lazy loads) would have shown up by the time another document is printed.
    expect(pdfText(await pool.print({ html: page('<p>after</p>') }))).toContain('after');
    expect(canary.requests).toEqual([]);
    expect(canary.connections()).toBe(0);
  });

  it('refuses what the routing never sees (a data: frame) by the content security policy', async () => {
    const pdf = await pool.print({
      html: page('<p>outer</p><iframe src="data:text/html,<p>FRAMED</p>"></iframe><object data="data:text/html,<p>OBJECT</p>"></object>'),
    });
    expect(pdfText(pdf)).toContain('outer');
    expect(pdfText(pdf)).not.toMatch(/FRAMED|OBJECT/);
    expect(withContentSecurityPolicy('<!DOCTYPE html><html>')).toMatch(
      /^<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src 'none';/,
    );
    expect(withContentSecurityPolicy('<p>x</p>')).toMatch(/^<meta http-equiv="Content-Security-Policy" [^>]*><p>x<\/p>$/);
  });

  it('does not let a page script change what is printed', async () => {
    const pdf = await pool.print({ html: page('<p id="p">static</p><script>document.getElementById("p").textContent = "script ran"</script>') });
    expect(pdfText(pdf)).toContain('static');
    expect(pdfText(pdf)).not.toContain('script ran');
  });

  it('shows data: images (the only source allowed), never a file: one', async () => {
    // Each image's width and height as pdfimages lists them (a refused image prints as Chromium's small broken-image icon).
    const sizes = (pdf: Buffer) =>
      execFileSync('pdfimages', ['-list', '-'], { input: pdf })
        .toString()
        .trim()
        .split('\n')
        .slice(2)
        .map((line) => line.trim().split(/\s+/).slice(3, 5).join('x'));
    expect(sizes(await pool.print({ html: page(`<img src="${pngDataUri(40, 40)}"><p>with image</p>`) }))).toContain('40x40');
    const dir = mkdtempSync(path.join(tmpdir(), 'printer-file-'));
    try {
      writeFileSync(path.join(dir, 'secret.png'), solidPng(40, 40));
      const pdf = await pool.print({
        html: page(`<img src="file://${dir}/secret.png"><div style="background: url(file://${dir}/secret.png); height: 40px"></div>`),
      });
      expect(sizes(pdf)).not.toContain('40x40');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints running headers and footers with page numbers on every page', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => `<tr><td>Row ${i + 1}</td></tr>`).join('');
    const pdf = await pool.print({
      html: page(`<table>${rows}</table>`, '<style>@page { margin: 20mm }</style>'),
      headerTemplate: '<div style="font-size: 10pt">Running head</div>',
      footerTemplate: '<div style="font-size: 10pt">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
    });
    const pages = pdfText(pdf)
      .split('\f')
      .filter((text) => text.trim());
    expect(pages.length).toBeGreaterThan(1);
    pages.forEach((text, i) => {
      expect(text).toContain('Running head');
      expect(text).toContain(`Page ${i + 1} of ${pages.length}`);
    });
  });

  it('keeps a break-inside: avoid block whole, moving it to the next page', async () => {
    const pdf = await pool.print({
      html: page(
        '<div style="height: 230mm">filler</div><div style="break-inside: avoid; border: 1px solid"><p>KEEP-TOP</p><div style="height: 40mm"></div><p>KEEP-BOTTOM</p></div>',
        '<style>@page { size: A4; margin: 20mm }</style>',
      ),
    });
    const pages = pdfText(pdf).split('\f');
    expect(pages[0]).not.toContain('KEEP-TOP');
    expect(pages[1]).toContain('KEEP-TOP');
    expect(pages[1]).toContain('KEEP-BOTTOM');
  });

  it('gives up on a page that takes too long and keeps printing with a fresh one', async () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => `<tr><td>${i}</td><td>${'x'.repeat(50)}</td></tr>`).join('');
    await expect(pool.print({ html: page(`<table>${rows}</table>`) }, { deadlineAt: Date.now() + 200 })).rejects.toBeInstanceOf(PrintTimeoutError);
    expect(pdfText(await pool.print({ html: page('<p>still printing</p>') }))).toContain('still printing');
  });

  it('recycles the browser after N documents', async () => {
    const successor = next((event) => event.type === 'started');
    const recycled = next((event) => event.type === 'recycled');
    await Promise.all(Array.from({ length: 6 }, (_, i) => pool.print({ html: page(`<p>doc ${i}</p>`) })));
    await successor;
    expect(await recycled).toEqual({ type: 'recycled', prints: expect.any(Number) });
    expect(pdfText(await pool.print({ html: page('<p>after recycling</p>') }))).toContain('after recycling');
  }, 120_000);

  it('gives a page a fresh window every N documents, between prints, and prints on', async () => {
    const own: PrinterEvent[] = [];
    const freshening = new BrowserPrinterPool({ pages: 1, timeoutMs: 15_000, freshenPageAfter: 2, onEvent: (event) => own.push(event) });
    await freshening.start();
    try {
      for (let i = 0; i < 5; i++) expect(pdfText(await freshening.print({ html: page(`<p>fresh ${i}</p>`) }))).toContain(`fresh ${i}`);
      expect(own.filter((event) => event.type === 'page_freshened')).toEqual([
        { type: 'page_freshened', prints: 2 },
        { type: 'page_freshened', prints: 2 },
      ]);
      expect(own.filter((event) => event.type === 'started')).toHaveLength(1); // freshened in place, never replaced
    } finally {
      await freshening.close();
    }
  });

  it('gives a fresh window after each hostile page too, and the next document prints whole', async () => {
    const { events: own, onEvent, until } = recordEvents<PrinterEvent>();
    const freshening = new BrowserPrinterPool({ pages: 1, timeoutMs: 15_000, freshenPageAfter: 1, onEvent });
    await freshening.start();
    try {
      // Each hostile page (a meta refresh among them) is followed by a freshening, which must wait for its own navigation's load.
      let printed = 0;
      for (const html of attacks(canary.url))
        await freshening.print({ html }).then(
          () => printed++,
          () => undefined,
        );
      expect(pdfText(await freshening.print({ html: page('<p>after the attacks</p>') }))).toContain('after the attacks');
      // The last print's freshening runs after it returned.
      await until(() => own.filter((event) => event.type === 'page_freshened').length === printed + 1);
      expect(canary.requests).toEqual([]);
      expect(canary.connections()).toBe(0);
      expect(own.filter((event) => event.type === 'started')).toHaveLength(1); // freshened in place, never replaced
    } finally {
      await freshening.close();
    }
  });

  it('prints the next document whole while a page before it still waits to refresh itself', async () => {
    const refreshing = new BrowserPrinterPool({ pages: 1, timeoutMs: 15_000, freshenPageAfter: Infinity });
    await refreshing.start();
    try {
      // A page asking to go elsewhere a moment after it loaded, then documents printed on the same window until well past that moment.
      const asked = Date.now();
      await refreshing.print({ html: page('<p>refreshing</p>', `<meta http-equiv="refresh" content="0.2; url=${canary.url}/delayed-refresh">`) });
      for (let i = 0; Date.now() - asked < 1_000; i++) expect(pdfText(await refreshing.print({ html: page(`<p>next ${i}</p>`) })).trim()).toBe(`next ${i}`);
      expect(canary.requests).toEqual([]);
    } finally {
      await refreshing.close();
    }
  });

  it('leaves nothing running when Chromium starts but cannot open its pages, not even a restart behind', async () => {
    // Chromium with --single-process cannot open a second context; a marker among its arguments finds its processes.
    const marker = `--docgen-test-${process.pid}-${Date.now()}`;
    const marked = () =>
      execFileSync('ps', ['-eo', 'args'])
        .toString()
        .split('\n')
        .filter((line) => line.includes(marker));
    const dir = mkdtempSync(path.join(tmpdir(), 'printer-launch-'));
    const executablePath = path.join(dir, 'chromium');
    writeFileSync(executablePath, `#!/bin/sh\nexec ${defaultChromiumPath()} --single-process ${marker} "$@"\n`, { mode: 0o755 });
    try {
      const failing = new BrowserPrinterPool({ pages: 2, timeoutMs: 15_000, executablePath });
      await expect(failing.start()).rejects.toThrow();
      await eventually(() => marked().length === 0, 'no browser of the pool left running');
      await expect(failing.print({ html: page('<p>x</p>') })).rejects.toBeInstanceOf(PrinterUnavailableError);
      await expect(failing.start()).rejects.toBeInstanceOf(PrinterUnavailableError); // closed for good, not half started
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses options it cannot honour', () => {
    expect(() => new BrowserPrinterPool({ pages: 0, timeoutMs: 1_000 })).toThrow(RangeError);
    expect(() => new BrowserPrinterPool({ pages: 1, timeoutMs: 1_000, freshenPageAfter: 0 })).toThrow(RangeError);
    expect(() => new BrowserPrinterPool({ pages: 1, timeoutMs: 1_000, freshenPageAfter: 2.5 })).toThrow(RangeError);
    expect(() => new BrowserPrinterPool({ pages: 1, timeoutMs: 1_000, freshenPageAfter: Infinity })).not.toThrow();
  });

  it('fails a print as unavailable, not timed out, when the browser dies while its document loads', async () => {
    const before = new Set(chromiumChildren());
    const dying = new BrowserPrinterPool({ pages: 1, timeoutMs: 60_000 });
    await dying.start();
    try {
      const browser = chromiumChildren().find((pid) => !before.has(pid))!;
      const rows = Array.from({ length: 30_000 }, (_, i) => `<tr><td>${i}</td><td>${'x'.repeat(50)}</td></tr>`).join('');
      const started = Date.now();
      const printing = dying.print({ html: page(`<table>${rows}</table>`) }, { onStarted: () => process.kill(Number(browser), 'SIGKILL') });
      await expect(printing).rejects.toBeInstanceOf(PrinterUnavailableError);
      expect(Date.now() - started).toBeLessThan(30_000); // well before the print's own timeout
    } finally {
      await dying.close();
    }
  });

  it('fails a print as unavailable when the browser dies while it prints the loaded document', async () => {
    const before = new Set(chromiumChildren());
    const dying = new BrowserPrinterPool({ pages: 1, timeoutMs: 60_000 });
    await dying.start();
    try {
      const browser = chromiumChildren().find((pid) => !before.has(pid))!;
      // The page's load event (the pool prints right after it): a long document's printing has only begun.
      const [slot] = (dying as unknown as { idle: { session: { once: (event: string, listener: () => void) => void } }[] }).idle;
      slot!.session.once('Page.loadEventFired', () => process.kill(Number(browser), 'SIGKILL'));
      const pages = Array.from({ length: 3_000 }, (_, i) => `<p style="break-after: page">page ${i}</p>`).join('');
      const printing = dying.print({ html: page(pages) });
      await expect(printing).rejects.toThrow(/^Chromium stopped while printing: (?!Chromium stopped while loading)/);
      await expect(printing).rejects.toBeInstanceOf(PrinterUnavailableError);
    } finally {
      await dying.close();
    }
  });

  it('hands its page on when the onStarted callback throws, and prints on', async () => {
    const pool = new BrowserPrinterPool({ pages: 1, timeoutMs: 15_000 });
    await pool.start();
    try {
      const failing = () => {
        throw new Error('a caller callback failed');
      };
      await expect(pool.print({ html: page('<p>x</p>') }, { onStarted: failing })).rejects.toThrow('a caller callback failed');
      expect(pdfText(await pool.print({ html: page('<p>after the callback</p>') }, { deadlineAt: Date.now() + 10_000 }))).toContain('after the callback');
    } finally {
      await pool.close();
    }
  });

  it('replaces a browser that crashed, and prints on', async () => {
    const { events: own, onEvent, until } = recordEvents<PrinterEvent>();
    const before = new Set(chromiumChildren());
    const crashing = new BrowserPrinterPool({ pages: 1, timeoutMs: 15_000, onEvent });
    await crashing.start();
    try {
      const browser = chromiumChildren().find((pid) => !before.has(pid))!;
      process.kill(Number(browser), 'SIGKILL');
      await until(() => own.filter((event) => event.type === 'started').length === 2);
      expect(own).toContainEqual({ type: 'exited', expected: false });
      expect(crashing.alive).toBe(true);
      expect(pdfText(await crashing.print({ html: page('<p>after a crash</p>') }))).toContain('after a crash');
    } finally {
      await crashing.close();
    }
  });
});

describe('BrowserPrinterPool recycling', () => {
  const rows = (count: number) => Array.from({ length: count }, (_, i) => `<tr><td>${i}</td><td>${'x'.repeat(50)}</td></tr>`).join('');
  /** The browsers this test process started since `before`. */
  const browsersSince = (before: Set<string>) => chromiumChildren().filter((pid) => pid && !before.has(pid));
  /** Stops the renderers of a browser (its pages' processes, grandchildren of it): a print on it waits, the browser itself answers. */
  const holdRenderers = (browser: string): number[] => {
    const processes = execFileSync('ps', ['-eo', 'pid=,ppid=,args='])
      .toString()
      .trim()
      .split('\n')
      .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/)!)
      .map(([, pid, ppid, args]) => ({ pid: Number(pid), ppid: Number(ppid), args: args! }));
    const family = new Set([Number(browser)]);
    for (let grown = true; grown;) {
      grown = false;
      for (const { pid, ppid } of processes) if (family.has(ppid) && !family.has(pid)) grown = Boolean(family.add(pid));
    }
    const renderers = processes.filter(({ pid, args }) => family.has(pid) && args.includes('--type=renderer')).map(({ pid }) => pid);
    if (renderers.length === 0) throw new Error(`no renderer of browser ${browser} to hold`);
    for (const pid of renderers) process.kill(pid, 'SIGSTOP');
    return renderers;
  };
  /** Lets held renderers run again (any that are gone are skipped). */
  const resume = (renderers: number[]) => renderers.filter(isRunning).forEach((pid) => process.kill(pid, 'SIGCONT'));
  /** The pool's events, and marks a test writes among them to read their order. */
  type Recorded = PrinterEvent | { type: 'printed'; text: string } | { type: 'long print done' };
  /** A started pool of one page (unless `options` say otherwise) with its events recorded, and the browsers that ran before it. */
  const startedPool = async (options: Partial<BrowserPoolOptions>) => {
    const { events: own, onEvent, until } = recordEvents<Recorded>();
    const before = new Set(chromiumChildren());
    const recycling = new BrowserPrinterPool({ pages: 1, timeoutMs: 15_000, onEvent, ...options });
    await recycling.start();
    return { recycling, own, until, before };
  };

  it('prints on the old browser while its successor launches, then hands over and closes the old one', async () => {
    const { recycling, own, until, before } = await startedPool({ recycleAfter: 2 });
    try {
      const [first] = browsersSince(before) as [string];
      const started = () => own.filter((event) => event.type === 'started').length;
      // The second document's release asks for a successor; the documents after it print while it launches.
      for (let i = 0; started() < 2; i++) {
        const text = pdfText(await recycling.print({ html: page(`<p>doc ${i}</p>`) })).trim();
        expect(text).toBe(`doc ${i}`);
        own.push({ type: 'printed', text });
      }
      const handOver = own.findIndex((event) => event.type === 'recycled');
      expect(own.slice(0, handOver).filter((event) => event.type === 'printed').length).toBeGreaterThan(2);
      expect(own[handOver]).toEqual({ type: 'recycled', prints: handOver - 1 }); // every document before it, on the old browser
      await until(() => own.some((event) => event.type === 'exited'));
      expect(own.filter((event) => event.type === 'exited')).toEqual([{ type: 'exited', expected: true }]);
      await eventually(() => !browsersSince(before).includes(first), 'the old browser gone');
      expect(browsersSince(before)).toHaveLength(1);
      expect(pdfText(await recycling.print({ html: page('<p>on the successor</p>') }))).toContain('on the successor');
    } finally {
      await recycling.close();
    }
  });

  it('lets a print under way on the old browser end before closing it', async () => {
    const { recycling, own, until, before } = await startedPool({ timeoutMs: 30_000, recycleAfter: 1 });
    const [old] = browsersSince(before) as [string];
    let held: number[] = [];
    try {
      await recycling.print({ html: page('<p>first</p>') }); // its release asks for a successor
      // Takes the old browser's page and is held there (its renderer stopped, the browser alive) until after the hand-over.
      const long = recycling.print({ html: page(`<table>${rows(2_000)}</table>`) }, { onStarted: () => (held = holdRenderers(old)) }).then((pdf) => {
        own.push({ type: 'long print done' });
        return pdf;
      });
      await until(() => own.filter((event) => event.type === 'started').length === 2);
      // A document on the successor takes it past its quota while the old browser still prints: one recycle at a time, so no third browser.
      expect(pdfText(await recycling.print({ html: page('<p>on the successor</p>') }))).toContain('on the successor');
      expect(browsersSince(before)).toHaveLength(2);
      expect(own.some((event) => event.type === 'exited')).toBe(false);
      resume(held);
      expect(pdfText(await long)).toContain('1999');
      await until(() => own.some((event) => event.type === 'exited'));
      const types = own.map((event) => event.type);
      // The hand-over came while the long print was under way; the old browser closed only after it.
      expect(types.indexOf('recycled')).toBeLessThan(types.indexOf('long print done'));
      expect(types.indexOf('long print done')).toBeLessThan(types.indexOf('exited'));
      expect(own).toContainEqual({ type: 'exited', expected: true });
    } finally {
      resume(held);
      await recycling.close();
    }
  });

  it('leaves the slot to the successor when the old browser dies while it launches, and launches nothing else', async () => {
    const { recycling, own, until, before } = await startedPool({ recycleAfter: 1 });
    try {
      const [old] = browsersSince(before) as [string];
      await recycling.print({ html: page('<p>first</p>') }); // its release launches a successor
      process.kill(Number(old), 'SIGKILL');
      await until(() => own.filter((event) => event.type === 'started').length === 2);
      // A second launch for the dead browser would have spawned by now, beside the successor.
      await eventually(() => !browsersSince(before).includes(old), 'the killed browser gone');
      expect(browsersSince(before)).toHaveLength(1);
      expect(own.filter((event) => event.type === 'exited')).toEqual([{ type: 'exited', expected: false }]);
      expect(own.some((event) => event.type === 'recycled')).toBe(false); // the successor replaced a dead browser, not a live one
      expect(recycling.alive).toBe(true);
      expect(pdfText(await recycling.print({ html: page('<p>on the successor</p>') }))).toContain('on the successor');
    } finally {
      await recycling.close();
    }
  });

  it('closes the old browser too when closed while it still prints, and that print fails as unavailable', async () => {
    const { recycling, own, until, before } = await startedPool({ timeoutMs: 30_000, recycleAfter: 1 });
    const [old] = browsersSince(before) as [string];
    let held: number[] = [];
    try {
      await recycling.print({ html: page('<p>first</p>') }); // its release launches a successor
      // Held on the old browser (its renderer stopped, the browser alive and answering) until the pool is closed.
      const long = recycling.print({ html: page('<p>held</p>') }, { onStarted: () => (held = holdRenderers(old)) }).catch((error: unknown) => error);
      await until(() => own.some((event) => event.type === 'recycled'));
      // The old browser is retired but still printing. Its stopped renderer outlives it (Playwright's close waited 30 s for it): killed as the browser goes.
      const closing = await Promise.race([recycling.close().then(() => 'closed'), sleep(15_000, 'still closing', { ref: false })]);
      expect(closing).toBe('closed');
      expect(await long).toBeInstanceOf(PrinterUnavailableError);
      expect(browsersSince(before)).toEqual([]);
      expect(held.filter(isRunning)).toEqual([]);
    } finally {
      resume(held);
    }
  });

  it('replaces at once a browser that dies while its successor waits to try again after failed launches', async () => {
    // Launches fail while the flag file exists: the first browser starts, its successor's launches fail and back off.
    const dir = mkdtempSync(path.join(tmpdir(), 'printer-retry-'));
    const flag = path.join(dir, 'refuse');
    const executablePath = path.join(dir, 'chromium');
    writeFileSync(executablePath, `#!/bin/sh\n[ -e ${flag} ] && exit 1\nexec ${defaultChromiumPath()} "$@"\n`, { mode: 0o755 });
    const { events: own, onEvent, until } = recordEvents<PrinterEvent>();
    const before = new Set(chromiumChildren());
    const recycling = new BrowserPrinterPool({ pages: 1, timeoutMs: 30_000, recycleAfter: 1, executablePath, onEvent });
    try {
      await recycling.start();
      const [old] = browsersSince(before) as [string];
      writeFileSync(flag, '');
      await recycling.print({ html: page('<p>first</p>') }); // its release launches a successor, which fails
      // After the fifth failure the next try is 8 s away (0.5 s doubled four times); the old browser prints on meanwhile.
      await until(() => own.filter((event) => event.type === 'restart_failed').length === 5);
      expect(pdfText(await recycling.print({ html: page('<p>still on the old one</p>') }))).toContain('still on the old one');
      rmSync(flag);
      process.kill(Number(old), 'SIGKILL');
      await eventually(() => !recycling.alive, 'the pool saw its browser go');
      // Well before the wait would have ended, the successor has launched and prints.
      const pdf = await recycling.print({ html: page('<p>on the successor</p>') }, { deadlineAt: Date.now() + 4_000 });
      expect(pdfText(pdf)).toContain('on the successor');
      expect(own.filter((event) => event.type === 'started')).toHaveLength(2);
    } finally {
      await recycling.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('recycles and prints on when its event listener throws', async () => {
    const before = new Set(chromiumChildren());
    let recycles = 0;
    const throwing = new BrowserPrinterPool({
      pages: 1,
      timeoutMs: 15_000,
      recycleAfter: 1,
      onEvent: (event) => {
        if (event.type === 'recycled') recycles += 1;
        throw new Error(`listener failed on ${event.type}`);
      },
    });
    await throwing.start();
    try {
      for (let i = 0; recycles < 2; i++) expect(pdfText(await throwing.print({ html: page(`<p>doc ${i}</p>`) })).trim()).toBe(`doc ${i}`);
      await eventually(() => browsersSince(before).length === 1, 'every replaced browser closed');
    } finally {
      await throwing.close();
    }
    expect(browsersSince(before)).toEqual([]);
  });

  it('leaves nothing running when closed while it starts, and start() fails as unavailable', async () => {
    const before = new Set(chromiumChildren());
    const starting = new BrowserPrinterPool({ pages: 1, timeoutMs: 15_000 });
    const started = starting.start().catch((error: unknown) => error);
    await eventually(() => browsersSince(before).length > 0, 'Chromium launched');
    await starting.close();
    expect(browsersSince(before)).toEqual([]);
    expect(await started).toBeInstanceOf(PrinterUnavailableError);
  });

  it('leaves nothing running when closed while a successor launches', async () => {
    const { recycling, before } = await startedPool({ recycleAfter: 1 });
    await recycling.print({ html: page('<p>first</p>') }); // its release launches a successor
    await recycling.close();
    expect(browsersSince(before)).toEqual([]);
  });

  it('kills a retired browser that hangs instead of closing, and recycles again after it', async () => {
    const { recycling, own, until, before } = await startedPool({ recycleAfter: 1 });
    try {
      const [hung] = browsersSince(before) as [string];
      await recycling.print({ html: page('<p>first</p>') }); // its release launches a successor
      process.kill(Number(hung), 'SIGSTOP'); // answers nothing, close() included
      await until(() => own.some((event) => event.type === 'exited'));
      expect(own.filter((event) => event.type === 'exited')).toEqual([{ type: 'exited', expected: false }]); // killed, not closed: the worker warns
      await eventually(() => !browsersSince(before).includes(hung), 'the hung browser gone');
      // The next recycle is not held by the hung one.
      expect(pdfText(await recycling.print({ html: page('<p>on the successor</p>') }))).toContain('on the successor');
      await until(() => own.filter((event) => event.type === 'recycled').length === 2);
    } finally {
      await recycling.close();
    }
    expect(browsersSince(before)).toEqual([]);
  });

  it('replaces a browser that hangs: its print times out, no page of it comes back, a successor prints', async () => {
    const { recycling, own, until, before } = await startedPool({});
    try {
      const [hung] = browsersSince(before) as [string];
      process.kill(Number(hung), 'SIGSTOP');
      const hungPrint = recycling.print({ html: page('<p>on the hung browser</p>') }, { deadlineAt: Date.now() + 1_000 });
      await expect(hungPrint).rejects.toBeInstanceOf(PrintTimeoutError);
      // Its page is replaced in vain (the browser answers nothing), so the browser is: this print waits for the successor's page.
      expect(pdfText(await recycling.print({ html: page('<p>on the successor</p>') }))).toContain('on the successor');
      await until(() => own.some((event) => event.type === 'exited'));
      expect(own.filter((event) => event.type === 'exited')).toEqual([{ type: 'exited', expected: false }]);
      await eventually(() => !browsersSince(before).includes(hung), 'the hung browser gone');
    } finally {
      await recycling.close();
    }
    expect(browsersSince(before)).toEqual([]);
  });

  it('kills a browser that hangs when closed, and close() returns', async () => {
    const { recycling, before } = await startedPool({});
    const [hung] = browsersSince(before) as [string];
    process.kill(Number(hung), 'SIGSTOP');
    // Killed after 5 s; Playwright on its own would wait 30 s.
    const closing = await Promise.race([recycling.close().then(() => 'closed'), sleep(15_000, 'still closing', { ref: false })]);
    expect(closing).toBe('closed');
    expect(browsersSince(before)).toEqual([]);
  });

  it('kills a hung browser started by a wrapper script that does not exec it, and close() returns', async () => {
    // Debian's /usr/bin/chromium-headless-shell runs the browser as its child: the process group is the script's.
    const { recycling, before } = await startedPool({ executablePath: '/usr/bin/chromium-headless-shell' });
    const [wrapper] = browsersSince(before) as [string];
    const browser = execFileSync('pgrep', ['-P', wrapper]).toString().trim();
    process.kill(Number(browser), 'SIGSTOP');
    const closing = await Promise.race([recycling.close().then(() => 'closed'), sleep(15_000, 'still closing', { ref: false })]);
    expect(closing).toBe('closed');
    expect(browsersSince(before)).toEqual([]);
  });

  it('prints every document across several recycles with four clients, and leaves no browser behind', async () => {
    const { recycling, own, before } = await startedPool({ pages: 2, recycleAfter: 10 });
    let most = 0;
    const sampler = setInterval(() => {
      most = Math.max(most, browsersSince(before).length);
    }, 25);
    try {
      // Prints go on while each successor launches, so a recycle comes every 15–30 documents here, not every 10: print until three.
      const recycles = () => own.filter((event) => event.type === 'recycled').length;
      const client = async (c: number) => {
        for (let i = 0; recycles() < 3 && i < 100; i++)
          expect(pdfText(await recycling.print({ html: page(`<p>client ${c} doc ${i}</p>`) })).trim()).toBe(`client ${c} doc ${i}`);
      };
      await Promise.all([0, 1, 2, 3].map(client));
      // A closed browser leaves the process table before Playwright reports it gone: both awaited.
      const exits = () => own.filter((event) => event.type === 'exited').length;
      await eventually(() => browsersSince(before).length === 1 && exits() === recycles(), 'every replaced browser closed');
      expect(own.filter((event) => event.type === 'recycled').length).toBeGreaterThanOrEqual(3);
      expect(own.filter((event) => event.type === 'exited')).toEqual(
        own.filter((event) => event.type === 'recycled').map(() => ({ type: 'exited', expected: true })),
      );
      expect(most).toBeLessThanOrEqual(2);
    } finally {
      clearInterval(sampler);
      await recycling.close();
    }
    expect(browsersSince(before)).toEqual([]);
  });
});

describe('BrowserPrinterPool in a process that is asked to stop', () => {
  it('keeps its browser through SIGTERM and SIGINT until the process closes it: a print under way at the signal ends whole', async () => {
    // A service's graceful shutdown: on the signal it lets the print under way finish, then closes the pool. Playwright
    // by default closes the browser itself on these signals, under the print.
    const built = path.resolve(__dirname, '../dist/index.js');
    const script = `
      const { BrowserPrinterPool } = require(${JSON.stringify(built)});
      const events = [];
      const pool = new BrowserPrinterPool({ pages: 1, timeoutMs: 30000, onEvent: (event) => events.push(event) });
      const page = (text) => '<!DOCTYPE html><p>' + text + '</p>';
      let printing;
      const stop = (signal) => async () => {
        const outcome = await printing.then(() => 'printed', (error) => 'failed: ' + error.message);
        const after = await pool.print({ html: page('after the signal') }).then(() => 'printed', (error) => 'failed: ' + error.message);
        await pool.close();
        process.stdout.write(JSON.stringify({ signal, outcome, after, events }));
        process.exit(0);
      };
      pool.start().then(() => {
        process.once('SIGTERM', stop('SIGTERM'));
        process.once('SIGINT', stop('SIGINT'));
        printing = pool.print({ html: page('under way') }, { onStarted: () => process.stdout.write('printing\\n') });
      });
    `;
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out === 'printing\n') child.kill(signal);
      });
      await once(child, 'exit');
      expect(JSON.parse(out.slice('printing\n'.length))).toEqual({
        signal,
        outcome: 'printed',
        after: 'printed',
        events: [
          { type: 'started', pages: 1 },
          { type: 'exited', expected: true },
        ],
      });
    }
  }, 60_000);
});

/** True while the process exists (a zombie counts as gone). */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The Chromium processes this test process started (each pool's browser). */
function chromiumChildren(): string[] {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid), 'chromium'])
      .toString()
      .trim()
      .split('\n');
  } catch {
    return []; // pgrep exits 1 when it finds none
  }
}

describe('defaultChromiumPath', () => {
  it('prefers the headless shell and falls back to the full browser', () => {
    expect(defaultChromiumPath(() => true)).toBe('/usr/lib/chromium/chromium-headless-shell');
    expect(defaultChromiumPath(() => false)).toBe('/usr/bin/chromium');
  });
});
