import { PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';

/**
 * A one-page PDF with `text`, slightly damaged as real ones are: its startxref points 7 bytes
 * off (qpdf rebuilds the cross-reference table) and a second content stream is not the hex its
 * filter says (qpdf writes it as it is). Readers show the page; qpdf repairs both, with warnings.
 */
export async function slightlyDamagedPdf(text: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  page.drawText(text, { x: 60, y: 400, size: 20, font });
  page.node.addContentStream(doc.context.register(doc.context.stream('71 zz>', { Filter: PDFName.of('ASCIIHexDecode') })));
  const pdf = Buffer.from(await doc.save({ useObjectStreams: false })).toString('latin1');
  return Buffer.from(
    pdf.replace(/startxref\n(\d+)(?![\s\S]*startxref)/, (_, offset: string) => `startxref\n${Number(offset) + 7}`),
    'latin1',
  );
}
