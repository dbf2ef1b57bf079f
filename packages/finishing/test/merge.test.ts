import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { pdfPageTexts } from '@docgen/testing';
import { mergePdfs } from '../src';

async function pdfWithPages(...texts: string[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of texts) doc.addPage([595, 842]).drawText(text, { x: 60, y: 400, size: 20, font });
  return Buffer.from(await doc.save());
}

describe('mergePdfs', () => {
  it('keeps every page of every PDF, in the order given', async () => {
    const merged = await mergePdfs([await pdfWithPages('A1', 'A2'), await pdfWithPages('B1'), await pdfWithPages('C1', 'C2', 'C3')]);
    expect(pdfPageTexts(merged)).toEqual(['A1', 'A2', 'B1', 'C1', 'C2', 'C3']);
  });

  it('refuses fewer than two PDFs and fails on one that is not a PDF', async () => {
    await expect(mergePdfs([await pdfWithPages('A1')])).rejects.toThrow(RangeError);
    await expect(mergePdfs([await pdfWithPages('A1'), Buffer.from('not a pdf')])).rejects.toThrow();
  });
});
