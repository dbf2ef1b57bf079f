import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildDocx, paragraph, pdfPageTexts, picture, recordEvents, solidPng, withParts } from '@docgen/testing';
import { ConversionFailedError, ConversionTimeoutError, ConverterCrashedError, ConverterUnavailableError } from './errors';
import { WarmConverterPool, type PoolEvent } from './warm-pool';

const pdfText = (pdf: Buffer) => execFileSync('pdftotext', ['-', '-'], { input: pdf }).toString();
/** Each PDF's pages, as their text. */
const pageTexts = (pdfs: Buffer[]) => pdfs.map((pdf) => pdfPageTexts(pdf).map((page) => page.trim()));
/** A paragraph that starts with the (empty) bookmark `name`, as batchDocx marks a document's start. */
const marked = (name: string, id: number, text: string) =>
  `<w:p><w:bookmarkStart w:id="${id}" w:name="${name}"/><w:bookmarkEnd w:id="${id}"/><w:r><w:t>${text}</w:t></w:r></w:p>`;
const pageBreak = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';
const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** soffice processes whose command line names this pool's profiles. */
const sofficeProcessesUsing = (workMarker: string) =>
  execFileSync('ps', ['-eo', 'pid,args'])
    .toString()
    .split('\n')
    .filter((line) => line.includes('soffice') && line.includes(workMarker));

/** The processes of a bridge's process group (the bridge, soffice and its helpers). */
const processesInGroup = (bridgePid: number) =>
  execFileSync('ps', ['-eo', 'pgid=,pid=,rss=,comm='])
    .toString()
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([group]) => Number(group) === bridgePid)
    .map(([, pid, rss, command]) => ({ pid: Number(pid), rssKiB: Number(rss), command: command! }));

/** Resident memory of the soffice processes in a bridge's process group, in MiB. */
const sofficeRssMiB = (bridgePid: number) =>
  processesInGroup(bridgePid)
    .filter(({ command }) => command.startsWith('soffice'))
    .reduce((sum, { rssKiB }) => sum + rssKiB / 1024, 0);

describe('WarmConverterPool (real LibreOffice)', () => {
  const { onEvent, next } = recordEvents<PoolEvent>();
  let pool: WarmConverterPool;

  beforeAll(async () => {
    pool = new WarmConverterPool({
      size: 2,
      timeoutMs: 30_000,
      recycleAfter: 6,
      onEvent,
    });
    await pool.start();
  }, 120_000);
  afterAll(() => pool.close());

  it('converts DOCX to PDF and to DOCX, several at once', async () => {
    const docs = ['Alpha', 'Beta', 'Gamma', 'Delta'].map((word) => buildDocx({ body: paragraph(`Hello ${word} Привет 你好`) }));
    const pdfs = await Promise.all(docs.map((doc) => pool.convert(doc, 'docx', 'pdf')));
    pdfs.forEach((pdf, i) => {
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      expect(pdfText(pdf)).toContain(`Hello ${['Alpha', 'Beta', 'Gamma', 'Delta'][i]} Привет 你好`);
    });
    const docx = await pool.convert(docs[0]!, 'docx', 'docx');
    expect(docx.subarray(0, 2).toString()).toBe('PK');
  });

  it('exports each part of a document, from its bookmark to the next, as a PDF of its own', async () => {
    const docx = buildDocx({
      body: [
        marked('partOne', 1, 'First alone'),
        pageBreak,
        marked('partTwo', 2, 'Second begins'),
        pageBreak,
        paragraph('Second ends'),
        pageBreak,
        marked('partThree', 3, 'Third'),
      ].join(''),
    });
    const parts = await pool.convertParts(docx, ['partOne', 'partTwo', 'partThree']);
    expect(pageTexts(parts)).toEqual([['First alone'], ['Second begins', 'Second ends'], ['Third']]);
    // The bookmarks are only where the parts start: never written into the PDFs.
    expect(parts.some((pdf) => pdf.includes('partTwo'))).toBe(false);
    await expect(pool.convertParts(docx, ['partOne', 'missing'])).rejects.toBeInstanceOf(ConversionFailedError);
    await expect(pool.convertParts(docx, ['partTwo', 'partOne'])).rejects.toBeInstanceOf(ConversionFailedError);
  });

  it("with `sections`, finds each part by its section's page style, and by its bookmark when the styles do not tell or the parts are long", async () => {
    // As batchDocx ends each document: a next-page section break restarting page numbers (so
    // Writer inserts a blank page before a part that would start on a left-hand page).
    const sectionBreak = (firstPageOfItsOwn = false) =>
      `<w:p><w:pPr><w:sectPr><w:type w:val="nextPage"/><w:pgSz w:w="11906" w:h="16838"/><w:pgNumType w:start="1"/>${firstPageOfItsOwn ? '<w:titlePg/>' : ''}</w:sectPr></w:pPr></w:p>`;
    // partTwo's mark on its section's second page: the bookmarks and the sections disagree,
    // which shows which of them found the pages.
    const misplaced = buildDocx({
      body: [
        marked('partOne', 1, 'First alone'),
        sectionBreak(),
        paragraph('Second begins'),
        pageBreak,
        marked('partTwo', 2, 'Second ends'),
        sectionBreak(),
        marked('partThree', 3, 'Third'),
      ].join(''),
    });
    expect(pageTexts(await pool.convertParts(misplaced, ['partOne', 'partTwo', 'partThree'], { sections: true }))).toEqual([
      ['First alone'],
      ['Second begins', 'Second ends'],
      ['Third'],
    ]);
    expect(pageTexts(await pool.convertParts(misplaced, ['partOne', 'partTwo', 'partThree']))).toEqual([
      ['First alone', 'Second begins'],
      ['Second ends'],
      ['Third'],
    ]);
    // Parts of many pages (more than 8 a part on average): each found by its bookmark, in fewer messages than reading every page's style.
    const longPages = Array.from({ length: 24 }, () => paragraph('Long') + pageBreak).join('');
    const long = buildDocx({
      body: [
        marked('partOne', 1, 'First alone'),
        sectionBreak(),
        longPages,
        marked('partTwo', 2, 'Second ends'),
        sectionBreak(),
        marked('partThree', 3, 'Third'),
      ].join(''),
    });
    expect(pageTexts(await pool.convertParts(long, ['partOne', 'partTwo', 'partThree'], { sections: true }))).toEqual([
      ['First alone', ...Array<string>(24).fill('Long')],
      ['Second ends'],
      ['Third'],
    ]);
    // Parts of one page style (page breaks, not sections), or of two (a first page of its own):
    // the runs of styles are not the parts, so the bookmarks find them.
    for (const between of [pageBreak, sectionBreak(true)]) {
      const docx = buildDocx({
        body: [marked('partOne', 1, 'First begins'), pageBreak, paragraph('First ends'), between, marked('partTwo', 2, 'Second')].join(''),
      });
      expect(pageTexts(await pool.convertParts(docx, ['partOne', 'partTwo'], { sections: true }))).toEqual([['First begins', 'First ends'], ['Second']]);
    }
    await expect(pool.convertParts(misplaced, ['partOne', 'missing'], { sections: true })).rejects.toBeInstanceOf(ConversionFailedError);
    await expect(pool.convertParts(misplaced, ['partTwo', 'partOne', 'partThree'], { sections: true })).rejects.toBeInstanceOf(ConversionFailedError);
  });

  it("exports a part, and a PDF/A, with the profile's PDF settings, as a plain document alone is exported", async () => {
    // Given any option (a page range), LibreOffice's PDF filter takes its built-in defaults for
    // the others rather than the profile's; its JPEG quality is one that differs.
    const docx = withParts(
      buildDocx({
        body: '<w:p><w:bookmarkStart w:id="1" w:name="partOne"/><w:bookmarkEnd w:id="1"/><w:r><w:t>Photo</w:t></w:r></w:p>' + picture('r:embed="rIdPhoto"'),
        relationships: [
          `<Relationship Id="rIdPhoto" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/photo.png"/>`,
        ],
      }),
      { 'word/media/photo.png': solidPng(2400, 2400) },
      ['<Default Extension="png" ContentType="image/png"/>'],
    );
    // Each image's size, colour, encoding and bytes; not its object number, which PDF/A's own objects shift.
    const images = (pdf: Buffer) =>
      execFileSync('pdfimages', ['-list', '-'], { input: pdf })
        .toString()
        .split('\n')
        .slice(2)
        .map((line) =>
          line
            .trim()
            .split(/\s+/)
            .filter((_, column) => column !== 10 && column !== 11),
        )
        .filter((columns) => columns.length > 1)
        .map((columns) => columns.join(' '));
    const [part] = await pool.convertParts(docx, ['partOne']);
    const alone = await pool.convert(docx, 'docx', 'pdf');
    const archival = await pool.convert(docx, 'docx', 'pdf', { pdfStandard: 'PDF/A-2b' });
    expect(images(alone)).toEqual([expect.stringContaining('jpeg')]);
    expect(images(part!)).toEqual(images(alone));
    // PDF/A's options are options too: the rest must still be the profile's.
    expect(images(archival)).toEqual(images(alone));
  });

  it('opens HTML with an import filter as a Writer document and stores DOCX', async () => {
    const html = Buffer.from('<!doctype html><html><body><h1>Invoice for {client_name}</h1></body></html>');
    const docx = await pool.convert(html, 'html', 'docx', { inputFilter: 'HTML (StarWriter)' });
    expect(docx.subarray(0, 2).toString()).toBe('PK');
    expect(pdfText(await pool.convert(docx, 'docx', 'pdf'))).toContain('Invoice for {client_name}');
  });

  it('retires an instance killed mid-conversion with a retryable error and returns to full size', async () => {
    const restarted = next((e) => e.type === 'started');
    // Killed the moment it takes the conversion: mid-conversion, whatever the timing.
    const conversion = pool.convert(buildDocx({ body: paragraph('doomed') }), 'docx', 'pdf', {
      onInstanceTaken: (pid) => process.kill(-pid!, 'SIGKILL'),
    });
    await expect(conversion).rejects.toBeInstanceOf(ConverterUnavailableError);
    await restarted;
    while (pool.liveCount < 2) await next((e) => e.type === 'started');
    expect(pool.liveCount).toBe(2);
    expect(pdfText(await pool.convert(buildDocx({ body: paragraph('after the crash') }), 'docx', 'pdf'))).toContain('after the crash');
  }, 120_000);

  it('rejects retryably, not blaming the document, when LibreOffice dies under it while its bridge lives, and hands the dead instance to nobody', async () => {
    const restarted = next((e) => e.type === 'started');
    const conversion = pool.convert(buildDocx({ body: paragraph('soffice alone dies') }), 'docx', 'pdf', {
      onInstanceTaken: (pid) => {
        for (const office of processesInGroup(pid!).filter(({ command }) => command === 'soffice.bin')) process.kill(office.pid, 'SIGKILL');
      },
    });
    // Both instances taken: the third waits, and must not be handed the dying one when the crash is reported.
    const behind = [
      pool.convert(buildDocx({ body: paragraph('next') }), 'docx', 'pdf'),
      pool.convert(buildDocx({ body: paragraph('after next') }), 'docx', 'pdf'),
    ];
    await expect(conversion).rejects.toBeInstanceOf(ConverterCrashedError);
    expect((await Promise.all(behind)).map(pdfText).join()).toMatch(/next[\s\S]*after next/);
    await restarted;
    while (pool.liveCount < 2) await next((e) => e.type === 'started');
    expect(pdfText(await pool.convert(buildDocx({ body: paragraph('after soffice died') }), 'docx', 'pdf'))).toContain('after soffice died');
  }, 120_000);

  it('recycles an instance after its quota of conversions', async () => {
    const recycled = next((e) => e.type === 'recycled');
    for (let i = 0; i < 14; i++) await pool.convert(buildDocx({ body: paragraph(`n${i}`) }), 'docx', 'pdf');
    // At least its quota: it goes on converting while its successor starts.
    expect(((await recycled) as { conversions: number }).conversions).toBeGreaterThanOrEqual(6);
  }, 120_000);
});

// The tuned pool loads each document into the frame of the one before (convert_server.py);
// the untuned one opens a new frame per document. Neither may ever export a document but the
// one asked for, nor be left unusable by a document it cannot open.
describe.each(['tuned', 'untuned'] as const)('one %s instance, document after document', (profile) => {
  let pool: WarmConverterPool;
  const started: PoolEvent[] = [];
  beforeAll(async () => {
    pool = new WarmConverterPool({ size: 1, timeoutMs: 30_000, profile, onEvent: (event) => event.type === 'started' && started.push(event) });
    await pool.start();
  }, 120_000);
  afterAll(() => pool.close());

  it('converted a small document of its own before taking any, and left no file of it behind', () => {
    expect(started).toEqual([{ type: 'started', slot: 0, pid: pool.pids[0], warmUpMs: expect.any(Number) }]);
    expect((started[0] as { warmUpMs: number }).warmUpMs).toBeGreaterThan(0);
    const workDir = (pool as unknown as { workDir: string }).workDir;
    expect(readdirSync(workDir).filter((name) => name.includes('warm-up'))).toEqual([]);
  });

  it('exports only the document asked for, also right after one it could not open', async () => {
    const [pid] = pool.pids;
    const pdfOf = async (word: string) => pdfText(await pool.convert(buildDocx({ body: paragraph(`Only ${word} here`) }), 'docx', 'pdf'));
    const alpha = await pdfOf('Alpha');
    expect(alpha).toContain('Only Alpha here');
    expect(alpha).not.toContain('Warm-up'); // the warm-up document it replaced in the frame
    await expect(pool.convert(Buffer.from('PK\x03\x04 not a zip'), 'docx', 'pdf')).rejects.toBeInstanceOf(ConversionFailedError);
    const beta = await pdfOf('Beta');
    expect(beta).toContain('Only Beta here');
    expect(beta).not.toContain('Alpha');
    const html = await pool.convert(Buffer.from('<html><body><p>Only Gamma here</p></body></html>'), 'html', 'docx', { inputFilter: 'HTML (StarWriter)' });
    const gamma = pdfText(await pool.convert(html, 'docx', 'pdf'));
    expect(gamma).toContain('Only Gamma here');
    expect(gamma).not.toContain('Beta');
    expect(pool.pids).toEqual([pid]);
    // Every document in and out was deleted, the one that failed too.
    const workDir = (pool as unknown as { workDir: string }).workDir;
    expect(readdirSync(workDir).filter((name) => /\.(docx|html|pdf)$/.test(name))).toEqual([]);
  }, 60_000);

  // A document replaced in its frame is detached but not closed; unclosed, each stayed in
  // LibreOffice's memory until the instance was recycled: +51 MiB over these 60 conversions,
  // against +15 (tuned) and +8 (untuned) when each is closed.
  it('does not keep the documents it converted in memory', async () => {
    const letter = buildDocx({ body: Array.from({ length: 40 }, (_, i) => paragraph(`Line ${i} of a letter that fills a page.`)).join('') });
    for (let i = 0; i < 10; i++) await pool.convert(letter, 'docx', 'pdf');
    const before = sofficeRssMiB(pool.pids[0]!);
    for (let i = 0; i < 60; i++) await pool.convert(letter, 'docx', 'pdf');
    expect(sofficeRssMiB(pool.pids[0]!) - before).toBeLessThan(32);
  }, 120_000);
});

describe('WarmConverterPool timeouts and shutdown', () => {
  it('kills and replaces an instance that exceeds the timeout, and leaves no soffice behind on close', async () => {
    const started: PoolEvent[] = [];
    const scratchDir = mkdtempSync(path.join(tmpdir(), 'docgen-scratch-test-'));
    const pool = new WarmConverterPool({ size: 1, timeoutMs: 1, scratchDir, onEvent: (e) => e.type === 'started' && started.push(e) });
    await pool.start();
    const [firstPid] = pool.pids;
    await expect(pool.convert(buildDocx({ body: paragraph('slow') }), 'docx', 'pdf')).rejects.toBeInstanceOf(ConversionTimeoutError);
    while (started.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pool.pids).not.toContain(firstPid);
    const pids = pool.pids;
    const marker = (pool as unknown as { workDir: string }).workDir;
    expect(sofficeProcessesUsing(marker).length).toBeGreaterThan(0);
    await pool.close();
    expect(pids.every((pid) => !isRunning(pid))).toBe(true);
    expect(sofficeProcessesUsing(marker)).toEqual([]);
    // LibreOffice's own temporary files were in the pool's directory, and went with it.
    expect(marker.startsWith(scratchDir)).toBe(true);
    expect(readdirSync(scratchDir)).toEqual([]);
    rmSync(scratchDir, { recursive: true });
  }, 120_000);
});

describe('WarmConverterPool recycling', () => {
  /** What the pool keeps to itself, read to check its bookkeeping. */
  const internals = (pool: WarmConverterPool) =>
    pool as unknown as {
      workDir: string;
      instances: ({ pid: number; kill: () => void } | undefined)[];
      successorOf: number | undefined;
      launches: Set<unknown>;
      replacing: Set<number>;
      starting: Set<unknown>;
      outgoing: Set<unknown>;
      retiring: Map<unknown, unknown>;
      retire: (instance: unknown) => void;
    };
  const profilesIn = (pool: WarmConverterPool) => readdirSync(internals(pool).workDir).filter((name) => name.startsWith('profile-'));
  /** Polls a state no event announces (a retired instance's profile being removed), for at most 10 s. */
  const eventually = async (check: () => boolean) => {
    for (let waited = 0; !check() && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    return check();
  };

  it('keeps converting on an instance past its quota while its successor starts, then hands over and retires it', async () => {
    const { onEvent, next } = recordEvents<PoolEvent>();
    const pool = new WarmConverterPool({ size: 1, timeoutMs: 30_000, recycleAfter: 3, onEvent });
    await pool.start();
    try {
      const [first] = pool.pids;
      const recycled = next((e) => e.type === 'recycled');
      let handedOver = false;
      void recycled.then(() => (handedOver = true));
      const takenBy: (number | undefined)[] = [];
      for (let i = 0; !handedOver && i < 500; i++) {
        const pdf = await pool.convert(buildDocx({ body: paragraph(`doc ${i}`) }), 'docx', 'pdf', { onInstanceTaken: (pid) => takenBy.push(pid) });
        expect(pdfText(pdf)).toContain(`doc ${i}`);
      }
      // The old way stopped the instance at its quota and converted nothing until the next had started.
      expect(((await recycled) as { conversions: number }).conversions).toBeGreaterThan(3);
      expect(takenBy.filter((pid) => pid === first).length).toBeGreaterThan(3);
      const exited = next((e) => e.type === 'exited' && e.pid === first);
      const [successor] = pool.pids;
      expect(successor).not.toBe(first);
      const pdf = await pool.convert(buildDocx({ body: paragraph('after the hand-over') }), 'docx', 'pdf', { onInstanceTaken: (pid) => takenBy.push(pid) });
      expect(pdfText(pdf)).toContain('after the hand-over');
      expect(takenBy.at(-1)).toBe(successor);
      expect(await exited).toMatchObject({ expected: true });
      expect(isRunning(first!)).toBe(false);
      expect(await eventually(() => profilesIn(pool).length === 1)).toBe(true);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('retires an idle instance the moment its successor is ready', async () => {
    const { onEvent, next } = recordEvents<PoolEvent>();
    const pool = new WarmConverterPool({ size: 1, timeoutMs: 30_000, recycleAfter: 1, onEvent });
    await pool.start();
    try {
      const [first] = pool.pids;
      const recycled = next((e) => e.type === 'recycled');
      const exited = next((e) => e.type === 'exited' && e.pid === first);
      await pool.convert(buildDocx({ body: paragraph('one') }), 'docx', 'pdf'); // its quota: the successor starts, nothing else is asked
      expect(await recycled).toMatchObject({ conversions: 1 });
      expect(await exited).toMatchObject({ expected: true });
      expect(isRunning(first!)).toBe(false);
      expect(pool.pids).toHaveLength(1);
      expect(await eventually(() => profilesIn(pool).length === 1)).toBe(true);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('gives the empty slot to the successor when the instance it was to succeed dies, and starts no second one', async () => {
    const { events, onEvent, next } = recordEvents<PoolEvent>();
    const pool = new WarmConverterPool({ size: 1, timeoutMs: 30_000, recycleAfter: 2, onEvent });
    await pool.start();
    try {
      const [first] = pool.pids;
      for (const text of ['one', 'two']) await pool.convert(buildDocx({ body: paragraph(text) }), 'docx', 'pdf'); // its quota: the successor starts now
      const exited = next((e) => e.type === 'exited' && e.pid === first);
      const started = next((e) => e.type === 'started');
      process.kill(-first!, 'SIGKILL');
      expect(await exited).toMatchObject({ expected: false });
      expect(internals(pool).replacing.size).toBe(0);
      expect(pool.liveCount).toBe(0);
      const conversion = pool.convert(buildDocx({ body: paragraph('waited for the successor') }), 'docx', 'pdf');
      expect(await started).toMatchObject({ slot: 0 });
      expect(pdfText(await conversion)).toContain('waited for the successor');
      // The successor's first conversion, below its quota: nothing else is starting, and nothing else started.
      expect(internals(pool).starting.size + internals(pool).replacing.size).toBe(0);
      expect(events.filter((e) => e.type === 'started')).toHaveLength(2);
      expect(events.filter((e) => e.type === 'recycled')).toEqual([]);
      expect(pool.liveCount).toBe(1);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('closed while a successor starts, leaves nothing running and no directory behind', async () => {
    const pool = new WarmConverterPool({ size: 1, timeoutMs: 30_000, recycleAfter: 1 });
    await pool.start();
    const marker = internals(pool).workDir;
    await pool.convert(buildDocx({ body: paragraph('one') }), 'docx', 'pdf'); // its quota: the successor starts now
    expect(internals(pool).successorOf).toBe(0);
    await pool.close();
    expect(internals(pool).launches.size).toBe(0); // close() waited for the start it cut short
    expect(sofficeProcessesUsing(marker)).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  }, 120_000);

  // A conversion that overruns its time kills its instance before its release retires it (a
  // predecessor whose successor took the slot meanwhile): that exit is a failure, not a stop.
  it('reports as unexpected the exit of an instance killed before it was retired', async () => {
    const { onEvent, next } = recordEvents<PoolEvent>();
    const pool = new WarmConverterPool({ size: 1, timeoutMs: 30_000, onEvent });
    await pool.start();
    try {
      const instance = internals(pool).instances[0]!;
      const exited = next((e) => e.type === 'exited' && e.pid === instance.pid);
      instance.kill();
      internals(pool).retire(instance);
      expect(await exited).toMatchObject({ expected: false });
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('under a steady load recycles one instance at a time, never running more than one LibreOffice extra, and every instance it replaced exits', async () => {
    const { events, onEvent } = recordEvents<PoolEvent>();
    let most = 0;
    let pool: WarmConverterPool | undefined = undefined;
    const count = () => {
      if (!pool) return;
      const { starting, outgoing, retiring } = internals(pool);
      most = Math.max(most, pool.liveCount + starting.size + outgoing.size + retiring.size);
    };
    pool = new WarmConverterPool({
      size: 2,
      timeoutMs: 30_000,
      recycleAfter: 2,
      onEvent: (event) => {
        onEvent(event);
        count();
      },
    });
    await pool.start();
    const marker = internals(pool).workDir;
    const pids = new Set<number>();
    let next = 0;
    const client = async () => {
      while (next < 2_000 && events.filter((e) => e.type === 'recycled').length < 4) {
        const i = next++;
        const pdf = await pool!.convert(buildDocx({ body: paragraph(`steady ${i}`) }), 'docx', 'pdf', {
          onInstanceTaken: (pid) => {
            pids.add(pid!);
            count();
          },
        });
        expect(pdfText(pdf)).toContain(`steady ${i}`);
      }
    };
    try {
      await Promise.all([client(), client(), client(), client()]);
      expect(events.filter((e) => e.type === 'recycled').length).toBeGreaterThanOrEqual(4);
      expect(most).toBe(3); // two in their slots, and one starting or leaving
      const replaced = [...pids].filter((pid) => !pool!.pids.includes(pid));
      expect(await eventually(() => replaced.every((pid) => !isRunning(pid)))).toBe(true);
      expect(events.filter((e) => e.type === 'exited' && !e.expected)).toEqual([]);
    } finally {
      await pool.close();
    }
    expect([...pids].every((pid) => !isRunning(pid))).toBe(true);
    expect(sofficeProcessesUsing(marker)).toEqual([]);
  }, 120_000);
});
