import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFArray, PDFDocument, PDFRawStream, StandardFonts, decodePDFRawStream } from '@cantoo/pdf-lib';
import { pdfText } from '@docgen/testing';
import { FinishingInputError, finishPdf } from '../src';
import { slightlyDamagedPdf } from './damaged-pdf';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Writes the PDF to a temporary file and runs a tool on it. */
function tool(command: string, pdf: Uint8Array, ...args: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'finishing-test-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'doc.pdf'), pdf);
  return execFileSync(command, [...args, path.join(dir, 'doc.pdf')], { cwd: dir }).toString();
}

/** Text in content order: -layout and reading order would tear the diagonal watermark apart. */
const plainText = (pdf: Uint8Array, ...args: string[]) => execFileSync('pdftotext', ['-raw', ...args, '-', '-'], { input: pdf }).toString();

/** A two-page PDF (A4 portrait, A4 landscape) with body text, as the converter would give. */
async function bodyPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const size of [
    [595, 842],
    [842, 595],
  ] as const) {
    const page = doc.addPage([...size]);
    page.drawText('Invoice 42 for Ada Lovelace', { x: 60, y: size[1] / 2, size: 28, font });
  }
  return Buffer.from(await doc.save());
}

describe('finishPdf', () => {
  it('returns the PDF untouched when nothing is asked', async () => {
    const pdf = await bodyPdf();
    expect(await finishPdf(pdf, {})).toBe(pdf);
  });

  it('draws the watermark on every page, under the body text', async () => {
    const finished = await finishPdf(await bodyPdf(), { watermark: { text: 'DRAFT', opacity: 0.2 } });
    const pages = plainText(finished)
      .split('\f')
      .filter((page) => page.trim() !== '');
    expect(pages).toHaveLength(2);
    for (const page of pages) {
      expect(page).toContain('Invoice 42 for Ada Lovelace');
      // pdftotext reads the steep diagonal of a portrait page letter by letter.
      expect(page.replace(/\s+/g, '')).toContain('DRAFT');
    }
    // Under the text: the watermark (the only drawing with a transparency state) is painted first.
    const doc = await PDFDocument.load(finished);
    for (const page of doc.getPages()) {
      const contents = page.node.Contents() as PDFArray;
      const streams = contents.asArray().map((ref) => Buffer.from(decodePDFRawStream(doc.context.lookup(ref) as PDFRawStream).decode()).toString('latin1'));
      expect(streams[0]).toMatch(/\/GS-\d+ gs/);
      expect(streams[0]).toMatch(/^\/Artifact BMC[\s\S]*EMC\s*$/); // marked as an artifact for tagged PDFs
      expect(streams.slice(1).join('')).not.toMatch(/ gs/);
      expect(streams.slice(1).join('')).toContain('Tj');
    }
  });

  it('refuses watermark text the font cannot draw, saying what to use', async () => {
    await expect(finishPdf(await bodyPdf(), { watermark: { text: '草稿', opacity: 0.2 } })).rejects.toThrow(FinishingInputError);
  });

  it('writes the metadata into the information dictionary and the XMP, keeping a PDF/A claim', async () => {
    const source = await PDFDocument.load(await bodyPdf());
    const claim = Buffer.from('<x:xmpmeta><rdf:Description pdfaid:part="2" pdfaid:conformance="B"/></x:xmpmeta>');
    source.catalog.set(source.context.obj('Metadata'), source.context.register(source.context.flateStream(claim, { Type: 'Metadata', Subtype: 'XML' })));
    const finished = await finishPdf(Buffer.from(await source.save()), {
      metadata: { title: 'Invoice 42 <final> & paid', author: 'ACME GmbH', subject: 'Billing', keywords: ['invoice', '2026'] },
    });
    const info = tool('pdfinfo', finished);
    expect(info).toMatch(/Title:\s+Invoice 42 <final> & paid/);
    expect(info).toMatch(/Author:\s+ACME GmbH/);
    expect(info).toMatch(/Subject:\s+Billing/);
    expect(info).toMatch(/Keywords:\s+invoice 2026/);
    const xmp = tool('pdfinfo', finished, '-meta');
    expect(xmp).toContain('<rdf:li xml:lang="x-default">Invoice 42 &lt;final&gt; &amp; paid</rdf:li>');
    expect(xmp).toContain('<rdf:li>ACME GmbH</rdf:li>');
    expect(xmp).toContain('<pdfaid:part>2</pdfaid:part>');
    expect(xmp).toContain('<pdfaid:conformance>B</pdfaid:conformance>');
  });

  it('encrypts with AES-256, the passwords and the permissions asked for', async () => {
    const finished = await finishPdf(await bodyPdf(), {
      watermark: { text: 'UAT', opacity: 0.15 },
      encryption: { userPassword: 'open sesame', ownerPassword: 'owner-9f2', permissions: { print: true, copy: false, modify: false } },
    });
    expect(() => plainText(finished)).toThrow();
    const shown = tool('qpdf', finished, '--show-encryption', '--password=open sesame');
    expect(shown).toContain('R = 6');
    expect(shown).toContain('file encryption method: AESv3');
    expect(shown).toContain('print high resolution: allowed');
    expect(shown).toContain('extract for any purpose: not allowed');
    expect(shown).toContain('modify anything: not allowed');
    expect(plainText(finished, '-upw', 'open sesame')).toContain('Invoice 42');
    expect(tool('qpdf', finished, '--show-encryption', '--password=owner-9f2')).toContain('Supplied password is owner password');
    // Nothing of the passwords is left in the file in clear.
    expect(finished.toString('latin1')).not.toContain('open sesame');
  });

  it('encrypts a slightly damaged PDF, which qpdf repairs with warnings', async () => {
    const finished = await finishPdf(await slightlyDamagedPdf('Invoice 43'), {
      encryption: { userPassword: '', ownerPassword: 'owner-only', permissions: { print: true, copy: true, modify: false } },
    });
    expect(tool('qpdf', finished, '--show-encryption')).toContain('R = 6');
    expect(pdfText(finished)).toContain('Invoice 43');
  });

  it('fails to encrypt a PDF qpdf cannot read with a FinishingInputError saying what to do', async () => {
    const encryption = { userPassword: '', ownerPassword: 'owner-only', permissions: { print: true, copy: true, modify: false } };
    const failure = finishPdf(Buffer.from('not a pdf'), { encryption });
    await expect(failure).rejects.toThrow(FinishingInputError);
    await expect(failure).rejects.toThrow(
      'The PDF could not be encrypted: qpdf cannot read the rendered PDF, damaged beyond repair (unable to find trailer dictionary while recovering damaged file); generate it again without password, owner_password and permissions',
    );
  });

  it('encrypts without an open password: anyone opens it, the permissions still apply', async () => {
    const finished = await finishPdf(await bodyPdf(), {
      encryption: { userPassword: '', ownerPassword: 'owner-only', permissions: { print: false, copy: true, modify: false } },
    });
    expect(pdfText(finished)).toContain('Invoice 42');
    const shown = tool('qpdf', finished, '--show-encryption');
    expect(shown).toContain('print high resolution: not allowed');
    expect(shown).toContain('extract for any purpose: allowed');
  });
});
