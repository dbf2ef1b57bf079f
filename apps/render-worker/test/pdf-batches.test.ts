import { execFileSync } from 'node:child_process';
import { inflateSync } from 'node:zlib';
import type { Logger } from '@docgen/observability';
import { buildDocx, paragraph, pdfText, run, table } from '@docgen/testing';
import { renderWorkerEnv } from '../src/config';
import { startConverter, type DocxToPdf } from '../src/converter';
import { Deadline, RenderTimeoutError } from '../src/deadline';

/** Holds the one warm instance until its deadline kills it; the renders behind it line up meanwhile. */
const SLOW = buildDocx({ body: table(Array.from({ length: 6000 }, (_, i) => [`row ${i}`, 'lorem ipsum dolor sit amet', String(i)])) });
const PAGE_FOOTER = [
  '<w:p><w:r><w:t xml:space="preserve">Page </w:t></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r>',
  '<w:r><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>',
  '<w:r><w:t>1</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>',
].join('');
/** A filled document of the one template: its own client, `rows` rows (60 run to a second page). */
const letter = (client: string, rows = 5, footer = PAGE_FOOTER, extra = '') =>
  buildDocx({
    body: [paragraph(`Invoice for ${client}`), extra, table(Array.from({ length: rows }, (_, i) => [`${client} line ${i + 1}`, String(i + 1)]))].join(''),
    footer,
  });
/** The fonts a PDF embeds, without their subset prefix. */
const fontNames = (pdf: Buffer) => [...pdf.toString('latin1').matchAll(/\/BaseFont\s*\/[A-Z]{6}\+([\w-]+)/g)].map((match) => match[1]);
/** Every compressed stream of a PDF inflated and joined: among them the fonts' character maps (ToUnicode), which name each character a subset holds. */
const unicodeMaps = (pdf: Buffer) => {
  const latin1 = pdf.toString('latin1');
  return [...latin1.matchAll(/stream\r?\n/g)]
    .map((match) => {
      const start = match.index + match[0].length;
      try {
        return inflateSync(pdf.subarray(start, latin1.indexOf('endstream', start))).toString('latin1');
      } catch {
        return '';
      }
    })
    .join('\n');
};
const deadlineIn = (ms: number) => new Deadline(Date.now() + ms, 30_000);
/** Pages, blank ones too (Writer's blank pages between a batch's documents must stay out). */
const pageCount = (pdf: Buffer) => Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', ['-'], { input: pdf }).toString())?.[1]);

/** How each conversion started: the size of the (last) call it was in (1: alone), and every call in order. */
function startLog() {
  const batchSizes = new Map<string, number>();
  const calls: string[] = [];
  const logFor = (name: string) =>
    ({
      debug: (fields: { batch?: number }) => {
        batchSizes.set(name, fields.batch ?? 1);
        calls.push(`${name}:${fields.batch ?? 1}`);
      },
      info: () => undefined,
      warn: () => undefined,
    }) as unknown as Logger;
  return { batchSizes, calls, logFor };
}

describe('PDFs of one template converted together while they wait (CONVERTER_BATCH_SIZE, real LibreOffice)', () => {
  let converter: DocxToPdf;

  beforeAll(async () => {
    const config = renderWorkerEnv.parse({ CONVERTER_POOL_SIZE: '1', RENDER_TIMEOUT_MS: '30000', CONVERTER_BATCH_SIZE: '4' });
    converter = await startConverter(config, startLog().logFor('pool'));
  }, 60_000);
  afterAll(() => converter.close());

  it('converts the renders of one key waiting together in one call, each PDF its own pages, numbered from 1', async () => {
    const { batchSizes, logFor } = startLog();
    const started: string[] = [];
    const busy = converter.toPdf(SLOW, { deadline: deadlineIn(1_500), log: logFor('busy') }).catch((e: unknown) => e);
    const convert = (client: string, key: string, rows?: number, extra?: string) =>
      converter.toPdf(letter(client, rows, PAGE_FOOTER, extra), {
        deadline: deadlineIn(30_000),
        log: logFor(client),
        batchKey: key,
        onStarted: () => started.push(client),
      });
    const pdfs = await Promise.all([
      convert('Alpha', 'org-a/template', 5, paragraph(run('Diagnosis: confidential', true))),
      convert('Beta', 'org-a/template', 60, paragraph('Ωmega')),
      convert('Gamma', 'org-a/template'),
      convert('Other', 'org-b/template'),
    ]);
    await busy;

    expect(Object.fromEntries(batchSizes)).toMatchObject({ Alpha: 3, Beta: 3, Gamma: 3, Other: 1 });
    // A shared call is nobody's own start: a deadline passing in it may be a batch-mate's doing (retried, not blamed).
    expect(started).toEqual(['Other']);
    const [alpha, beta, gamma, other] = pdfs.map((pdf) => pdfText(pdf));
    expect(alpha).toContain('Invoice for Alpha');
    expect(alpha).not.toMatch(/Beta|Gamma|Other/);
    expect(beta).toContain('Beta line 60');
    expect(beta).not.toMatch(/Alpha|Gamma/);
    expect(pdfs.map(pageCount)).toEqual([1, 2, 1, 1]);
    expect(beta).toMatch(/Page 1[\s\S]*Page 2/);
    expect(gamma).toContain('Invoice for Gamma');
    expect(gamma).toContain('Page 1');
    expect(gamma).not.toMatch(/Page [2-9]|Alpha|Beta/);
    expect(other).toContain('Invoice for Other');
    // No PDF carries a batch-mate's fonts or the characters only a batch-mate used.
    expect(fontNames(pdfs[0]!)).toContain('Carlito-Bold');
    expect(fontNames(pdfs[2]!)).not.toContain('Carlito-Bold');
    expect(unicodeMaps(pdfs[1]!)).toContain('<03A9>');
    expect(unicodeMaps(pdfs[0]!)).not.toContain('<03A9>');
    expect(unicodeMaps(pdfs[2]!)).not.toContain('<03A9>');
  }, 60_000);

  it('converts each alone when they cannot share a call (their other parts differ), in their place in the line', async () => {
    const { batchSizes, logFor } = startLog();
    const started: string[] = [];
    const busy = converter.toPdf(SLOW, { deadline: deadlineIn(1_500), log: logFor('busy') }).catch((e: unknown) => e);
    const convert = (client: string, key: string) =>
      converter.toPdf(letter(client, 5, paragraph(`Footer of ${client}`)), {
        deadline: deadlineIn(30_000),
        log: logFor(client),
        batchKey: key,
        onStarted: () => started.push(client),
      });
    const pdfs = await Promise.all([convert('Delta', 'org-a/template'), convert('Epsilon', 'org-a/template'), convert('Later', 'org-b/template')]);
    await busy;
    expect(Object.fromEntries(batchSizes)).toMatchObject({ Delta: 1, Epsilon: 1 });
    // not sent back behind the render that came after them
    expect(started).toEqual(['Delta', 'Epsilon', 'Later']);
    expect(pdfText(pdfs[0]!)).toMatch(/Invoice for Delta[\s\S]*Footer of Delta/);
    expect(pdfText(pdfs[1]!)).toMatch(/Invoice for Epsilon[\s\S]*Footer of Epsilon/);
  }, 60_000);

  it('converts each alone, in its place in the line, when LibreOffice refuses the batch (a page total in quotes its XML parser reads and batchDocx does not)', async () => {
    const { calls, logFor } = startLog();
    const started: string[] = [];
    const busy = converter.toPdf(SLOW, { deadline: deadlineIn(1_500), log: logFor('busy') }).catch((e: unknown) => e);
    const ofPages = PAGE_FOOTER.replace(
      '</w:p>',
      '<w:r><w:t xml:space="preserve"> of </w:t></w:r><w:fldSimple w:instr=\'NUMPAGES\'><w:r><w:t>1</w:t></w:r></w:fldSimple></w:p>',
    );
    const convert = (client: string, key: string, rows = 5) =>
      converter.toPdf(letter(client, rows, ofPages), {
        deadline: deadlineIn(30_000),
        log: logFor(client),
        batchKey: key,
        onStarted: () => started.push(client),
      });
    const pdfs = await Promise.all([convert('Theta', 'org-a/template'), convert('Iota', 'org-a/template', 60), convert('Later', 'org-b/template')]);
    await busy;
    expect(pdfText(pdfs[0]!)).toMatch(/Invoice for Theta[\s\S]*Page 1 of 1/);
    expect(pdfText(pdfs[1]!)).toMatch(/Page 1 of 2[\s\S]*Page 2 of 2/);
    // Tried together, then each alone, all before the render that came after them.
    expect(calls.filter((call) => call !== 'busy:1')).toEqual(['Theta:2', 'Iota:2', 'Theta:1', 'Iota:1', 'Later:1']);
    expect(started).toEqual(['Theta', 'Iota', 'Later']);
  }, 60_000);

  it('lets a render whose deadline passes while it leads the wait fail alone: the one that joined it is still converted', async () => {
    const { logFor } = startLog();
    const busy = converter.toPdf(SLOW, { deadline: deadlineIn(2_000), log: logFor('busy') }).catch((e: unknown) => e);
    const started: string[] = [];
    const convert = (client: string, key: string, deadline: Deadline) =>
      converter.toPdf(letter(client), { deadline, log: logFor(client), batchKey: key, onStarted: () => started.push(client) });
    const leader = convert('Zeta', 'org-a/template', deadlineIn(500)).catch((e: unknown) => e);
    const joined = convert('Eta', 'org-a/template', deadlineIn(30_000));
    const later = convert('Later', 'org-b/template', deadlineIn(30_000));
    expect(await leader).toBeInstanceOf(RenderTimeoutError);
    expect(pdfText(await joined)).toContain('Invoice for Eta');
    expect(pdfText(await later)).toContain('Invoice for Later');
    // The batch kept its place in line when its leader dropped out.
    expect(started).toEqual(['Eta', 'Later']);
    await busy;
  }, 60_000);
});
