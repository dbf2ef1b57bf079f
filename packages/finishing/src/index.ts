import { PDFDocument } from '@cantoo/pdf-lib';
import { encryptPdf } from './encrypt';
export { mergePdfs } from './merge';
import { setMetadata } from './metadata';
import { FinishingInputError, type FinishingOptions } from './options';
import { addSignaturePlaceholder, saveSigned } from './sign';
import { drawWatermark } from './watermark';

export { FinishingInputError, type FinishingOptions, type PdfEncryption } from './options';
export type { PdfSignature, SigningKey } from './sign';

export const needsFinishing = (options: FinishingOptions): boolean => Boolean(options.watermark || options.metadata || options.encryption || options.signature);

/**
 * The one finishing step after conversion, whatever produced the PDF: page work and
 * metadata first, then encryption (it covers everything before it) or the signature (it
 * covers every byte written before it, so nothing may come after it). Encrypting a signed
 * file would rewrite it and break the signature, and signing an encrypted one would need
 * the placeholder's strings encrypted too, which no maintained signer here does: the
 * request refuses the two together.
 */
export async function finishPdf(pdf: Buffer, options: FinishingOptions): Promise<Buffer> {
  if (!needsFinishing(options)) return pdf;
  let bytes: Uint8Array = pdf;
  if (options.signature && options.encryption) throw new FinishingInputError('A PDF cannot be both signed and encrypted here; leave out sign or the passwords');
  if (options.watermark || options.metadata || options.signature) {
    const doc = await PDFDocument.load(pdf, { updateMetadata: false });
    if (options.watermark) await drawWatermark(doc, options.watermark.text, options.watermark.opacity);
    if (options.metadata) setMetadata(doc, options.metadata);
    if (options.signature) {
      return saveSigned(doc, addSignaturePlaceholder(doc, options.signature));
    }
    bytes = await doc.save();
  }
  if (options.encryption) return encryptPdf(bytes, options.encryption);
  return Buffer.from(bytes);
}
