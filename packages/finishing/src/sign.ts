import { randomBytes } from 'node:crypto';
import { PDFArray, PDFDict, PDFHexString, PDFInvalidObject, PDFName, PDFNumber, PDFString, type PDFDocument } from '@cantoo/pdf-lib';
import { PadesSigner, type SigningKey } from './cms';
import { FinishingInputError } from './options';

export type { SigningKey } from './cms';

export interface PdfSignature {
  key: SigningKey;
  /** Who signs, as readers show it (the certificate's common name). */
  name: string;
  reason?: string;
  location?: string;
  /** The claimed signing time (/M); now when not given. */
  signingTime?: Date;
}

const PRINT = 4; // annotation flag: PDF/A wants every annotation printable
const SIGNATURES_EXIST = 1;
const APPEND_ONLY = 2;

/** The signature dictionary as written into the file, found again there by its bytes once the file is saved. */
export interface SignaturePlaceholder {
  signer: PadesSigner;
  dictionary: Buffer;
}

/**
 * Adds an invisible signature field whose value is a signature dictionary with room for the
 * CMS (`/Contents`, zeros) and a `/ByteRange` to fill in, on the first page. Done with the
 * pdf-lib we already use (@signpdf/placeholder-pdf-lib would need the unmaintained `pdf-lib`
 * 1.17 and checks objects with `instanceof` against it). The dictionary is written as raw
 * bytes so it never lands in a compressed object stream, where it could not be found.
 */
export function addSignaturePlaceholder(doc: PDFDocument, signature: PdfSignature): SignaturePlaceholder {
  const { context } = doc;
  const signer = new PadesSigner(signature.key);
  // A name nobody can know before the file is saved: no text in the document (a title, a link) can pass for it.
  const unguessable = PDFName.of(randomBytes(5).toString('hex'));
  const byteRange = PDFArray.withContext(context);
  byteRange.push(PDFNumber.of(0));
  for (let i = 0; i < 3; i++) byteRange.push(unguessable);
  const signatureDict = context.obj({
    Type: 'Sig',
    Filter: 'Adobe.PPKLite',
    SubFilter: 'ETSI.CAdES.detached',
    ByteRange: byteRange,
    Contents: PDFHexString.of('0'.repeat(signer.length * 2)),
    M: PDFString.fromDate(signature.signingTime ?? new Date()),
    Name: PDFHexString.fromText(signature.name),
    ...(signature.reason ? { Reason: PDFHexString.fromText(signature.reason) } : {}),
    ...(signature.location ? { Location: PDFHexString.fromText(signature.location) } : {}),
    Prop_Build: { App: { Name: 'docgen' } },
  });
  const raw = new Uint8Array(signatureDict.sizeInBytes());
  signatureDict.copyBytesInto(raw, 0);
  const signatureRef = context.register(PDFInvalidObject.of(raw));

  const page = doc.getPage(0);
  // An empty appearance: PDF/A wants one on every widget, even an invisible one.
  const appearance = context.register(context.formXObject([], { BBox: [0, 0, 0, 0], Resources: {} }));
  const widget = context.register(
    context.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Sig',
      Rect: [0, 0, 0, 0],
      V: signatureRef,
      T: PDFHexString.fromText(`Signature${Date.now()}`),
      F: PRINT,
      P: page.ref,
      AP: { N: appearance },
    }),
  );
  const annots = page.node.lookupMaybe(PDFName.of('Annots'), PDFArray) ?? context.obj([]);
  annots.push(widget);
  page.node.set(PDFName.of('Annots'), annots);

  let acroForm = doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict);
  if (!acroForm) {
    acroForm = context.obj({ Fields: [] });
    doc.catalog.set(PDFName.of('AcroForm'), context.register(acroForm));
  }
  const flags = acroForm.lookupMaybe(PDFName.of('SigFlags'), PDFNumber)?.asNumber() ?? 0;
  acroForm.set(PDFName.of('SigFlags'), PDFNumber.of(flags | SIGNATURES_EXIST | APPEND_ONLY));
  let fields = acroForm.lookupMaybe(PDFName.of('Fields'), PDFArray);
  if (!fields) {
    fields = context.obj([]);
    acroForm.set(PDFName.of('Fields'), fields);
  }
  fields.push(widget);
  return { signer, dictionary: Buffer.from(raw) };
}

/**
 * Signs a document that already holds the placeholder: it is saved without object streams,
 * the placeholder's dictionary is found by its own bytes (exactly once), and the byte range
 * and the CMS over every byte but the `/Contents` hole are written into it. Nothing may
 * change the bytes afterwards. (@signpdf/signpdf looks for the first "/ByteRange" anywhere in
 * the file, where a document's title or a link can put one.)
 */
export async function saveSigned(doc: PDFDocument, placeholder: SignaturePlaceholder): Promise<Buffer> {
  const pdf = Buffer.from(await doc.save({ useObjectStreams: false }));
  const { dictionary } = placeholder;
  const at = pdf.indexOf(dictionary);
  if (at < 0 || pdf.indexOf(dictionary, at + 1) >= 0) throw new Error('The signature dictionary is not in the saved PDF exactly once');
  const rangeStart = at + dictionary.indexOf('/ByteRange') + '/ByteRange'.length;
  const rangeEnd = at + dictionary.indexOf(']', rangeStart - at) + 1;
  const holeStart = at + dictionary.indexOf('<', dictionary.indexOf('/Contents'));
  const holeEnd = pdf.indexOf('>', holeStart) + 1;
  const range = ` [0 ${holeStart} ${holeEnd} ${pdf.length - holeEnd}]`;
  if (range.length > rangeEnd - rangeStart) throw new FinishingInputError('The PDF is too large to be signed');
  pdf.write(range.padEnd(rangeEnd - rangeStart, ' '), rangeStart, 'latin1');

  const cms = placeholder.signer.sign(Buffer.concat([pdf.subarray(0, holeStart), pdf.subarray(holeEnd)]));
  const room = holeEnd - holeStart - 2;
  if (cms.length * 2 > room) {
    throw new FinishingInputError(`The PDF could not be signed: its signature takes ${cms.length} bytes, and ${room / 2} were reserved for it`);
  }
  pdf.write(cms.toString('hex'), holeStart + 1, 'latin1');
  return pdf;
}
