import { execFileSync } from 'node:child_process';
import { PDFArray, PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { pdfPageTexts } from '@docgen/testing';
import { splitAtMarks } from '../src';

/** A PDF with a page per text and a named destination (as LibreOffice writes one) on the pages given. */
async function markedPdf(texts: string[], marks: Record<string, number>): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle('Invoice');
  doc.setCreator('Writer');
  doc.setProducer('LibreOffice 7.4');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const pages = texts.map((text) => {
    const page = doc.addPage([595, 842]);
    page.drawText(text, { x: 60, y: 400, size: 20, font });
    return page;
  });
  const destinations = doc.context.obj({});
  for (const [name, page] of Object.entries(marks))
    destinations.set(PDFName.of(name), doc.context.obj([pages[page]!.ref, PDFName.of('XYZ'), 0, 842, 0]) as PDFArray);
  doc.catalog.set(PDFName.of('Dests'), destinations);
  return Buffer.from(await doc.save());
}

describe('splitAtMarks', () => {
  it('cuts the PDF at each mark, in the order of the marks, each part with only its own pages', async () => {
    const pdf = await markedPdf(['A1', 'B1', 'B2', 'C1'], { a: 0, b: 1, c: 3 });
    const parts = await splitAtMarks(pdf, ['a', 'b', 'c']);
    expect(parts!.map(pdfPageTexts)).toEqual([['A1'], ['B1', 'B2'], ['C1']]);
    const info = execFileSync('pdfinfo', ['-'], { input: parts![1] }).toString();
    expect(info).toMatch(/Title:\s+Invoice/);
    expect(info).toMatch(/Creator:\s+Writer/);
    expect(info).toMatch(/Producer:\s+LibreOffice 7.4/);
  });

  it('answers nothing when a mark is missing, out of order or not on the first page', async () => {
    const pdf = await markedPdf(['A1', 'B1', 'C1'], { a: 0, b: 1, c: 2, late: 1 });
    expect(await splitAtMarks(pdf, ['a', 'missing'])).toBeUndefined();
    expect(await splitAtMarks(pdf, ['a', 'c', 'b'])).toBeUndefined();
    expect(await splitAtMarks(pdf, ['late', 'c'])).toBeUndefined();
    expect(await splitAtMarks(pdf, ['a', 'b', 'late'])).toBeUndefined();
  });
});
