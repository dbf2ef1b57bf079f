import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { pdfPageTexts } from '@docgen/testing';
import { FinishingInputError, mergePdfs } from '../src';
import { slightlyDamagedPdf } from './damaged-pdf';

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

  it('merges a slightly damaged PDF, which qpdf repairs with warnings', async () => {
    expect(pdfPageTexts(await mergePdfs([await pdfWithPages('A1'), await slightlyDamagedPdf('B1')]))).toEqual(['A1', 'B1']);
  });

  it('refuses fewer than two PDFs, and fails on one qpdf cannot read with a FinishingInputError naming it', async () => {
    await expect(mergePdfs([await pdfWithPages('A1')])).rejects.toThrow(RangeError);
    const failure = mergePdfs([await pdfWithPages('A1'), Buffer.from('not a pdf')]);
    await expect(failure).rejects.toThrow(FinishingInputError);
    await expect(failure).rejects.toThrow(
      'The PDF of document 2 of the merge is damaged beyond repair (unable to find trailer dictionary while recovering damaged file); generate that document again, or merge without it',
    );
  });
});
