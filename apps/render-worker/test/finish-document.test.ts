import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { FinishingInputError } from '@docgen/finishing';
import { pdfText } from '@docgen/testing';
import { finishDocumentPdf, type RenderSecretsStore } from '../src/finish-document';

async function onePagePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawText('Body', { x: 60, y: 400, size: 20, font: await doc.embedFont(StandardFonts.Helvetica) });
  return Buffer.from(await doc.save());
}

const noSecrets: RenderSecretsStore = { read: () => Promise.resolve(undefined), delete: () => Promise.resolve() };

describe('finishDocumentPdf', () => {
  it('fails with what to do when the passwords are gone (expired before the render)', async () => {
    const doc = { id: 'd1', isUat: false, pdfOptions: { password: '***' } };
    const finishing = finishDocumentPdf(await onePagePdf(), doc, { renderSecrets: noSecrets });
    await expect(finishing).rejects.toThrow(FinishingInputError);
    await expect(finishing).rejects.toThrow(/request the document again with them/);
  });

  it('leaves a UAT document plain when UAT_WATERMARK is empty, and a production one always', async () => {
    const pdf = await onePagePdf();
    expect(await finishDocumentPdf(pdf, { id: 'd1', isUat: true, pdfOptions: null }, { uatWatermark: '' })).toBe(pdf);
    expect(await finishDocumentPdf(pdf, { id: 'd1', isUat: false, pdfOptions: null }, { uatWatermark: 'UAT' })).toBe(pdf);
    const marked = await finishDocumentPdf(pdf, { id: 'd1', isUat: true, pdfOptions: null }, { uatWatermark: 'TEST SYSTEM' });
    expect(pdfText(marked).replace(/\s+/g, '')).toContain('TESTSYSTEM');
  });
});
