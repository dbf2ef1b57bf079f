import { PDFArray, PDFDict, PDFHexString, PDFInvalidObject, PDFName, PDFNumber, PDFString, type PDFDocument } from '@cantoo/pdf-lib';
import signpdf from '@signpdf/signpdf';
import { DEFAULT_BYTE_RANGE_PLACEHOLDER, SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import { PadesSigner, type SigningKey } from './cms';

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

/**
 * Adds an invisible signature field whose value is a signature dictionary with room for the
 * CMS (`/Contents`, zeros) and a `/ByteRange` to fill in, on the first page. Done with the
 * pdf-lib we already use (@signpdf/placeholder-pdf-lib needs the unmaintained `pdf-lib`
 * 1.17 and checks objects with `instanceof` against it). The dictionary is written as raw
 * bytes so it never lands in a compressed object stream, where the byte range could not be
 * found.
 */
export function addSignaturePlaceholder(doc: PDFDocument, signature: PdfSignature): void {
  const { context } = doc;
  const certificateBytes = signature.key.certificatePems.reduce((sum, pem) => sum + pem.length, 0);
  const contentsBytes = certificateBytes + PadesSigner.OVERHEAD_BYTES;
  const byteRange = PDFArray.withContext(context);
  byteRange.push(PDFNumber.of(0));
  for (let i = 0; i < 3; i++) byteRange.push(PDFName.of(DEFAULT_BYTE_RANGE_PLACEHOLDER));
  const signatureDict = context.obj({
    Type: 'Sig',
    Filter: 'Adobe.PPKLite',
    SubFilter: SUBFILTER_ETSI_CADES_DETACHED,
    ByteRange: byteRange,
    Contents: PDFHexString.of('0'.repeat(contentsBytes * 2)),
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
}

/**
 * Signs a document that already holds the placeholder: it is saved without object streams
 * (so `/ByteRange` stays findable), then @signpdf/signpdf fills in the byte range and the
 * CMS over every byte but the `/Contents` hole. Nothing may change the bytes afterwards.
 */
export async function saveSigned(doc: PDFDocument, signature: PdfSignature): Promise<Buffer> {
  const unsigned = Buffer.from(await doc.save({ useObjectStreams: false }));
  return signpdf.sign(unsigned, new PadesSigner(signature.key));
}
