import { PDFDocument } from '@cantoo/pdf-lib';
import { encryptPdf } from './encrypt';
export { mergePdfs } from './merge';
import { setMetadata } from './metadata';
import type { FinishingOptions } from './options';
import { drawWatermark } from './watermark';

export { FinishingInputError, type FinishingOptions, type PdfEncryption } from './options';

export const needsFinishing = (options: FinishingOptions): boolean => Boolean(options.watermark || options.metadata || options.encryption);

/**
 * The one finishing step after conversion, whatever produced the PDF: page work and
 * metadata first, encryption last (it covers everything before it; a signature, when it
 * comes, goes after page work and before nothing else changes the bytes).
 */
export async function finishPdf(pdf: Buffer, options: FinishingOptions): Promise<Buffer> {
  if (!needsFinishing(options)) return pdf;
  let bytes: Uint8Array = pdf;
  if (options.watermark || options.metadata) {
    const doc = await PDFDocument.load(pdf, { updateMetadata: false });
    if (options.watermark) await drawWatermark(doc, options.watermark.text, options.watermark.opacity);
    if (options.metadata) setMetadata(doc, options.metadata);
    bytes = await doc.save();
  }
  if (options.encryption) return encryptPdf(bytes, options.encryption);
  return Buffer.from(bytes);
}
