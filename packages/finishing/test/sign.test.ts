import { execFileSync } from 'node:child_process';
import { PDFDict, PDFDocument, PDFName, PDFString, StandardFonts } from '@cantoo/pdf-lib';
import { readPkcs12 } from '@docgen/security';
import { makeSigningCa, type TestSigningCa } from '@docgen/testing';
import { FinishingInputError, finishPdf, type SigningKey } from '../src';

let ca: TestSigningCa;
let key: SigningKey;
beforeAll(() => {
  ca = makeSigningCa();
  const issued = ca.issue();
  key = readPkcs12(issued.p12, issued.password);
});
afterAll(() => ca.cleanup());

async function bodyPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= 2; i++) doc.addPage([595, 842]).drawText(`Contract page ${i}`, { x: 60, y: 400, size: 24, font });
  return Buffer.from(await doc.save());
}

/** The CMS in /Contents, parsed by openssl (its ASN.1 dump names every attribute). */
function cmsDump(pdf: Buffer): string {
  const contents = /\/Contents\s*<([0-9a-fA-F]+)>/.exec(pdf.toString('latin1'))![1]!.replace(/(00)+$/, '');
  return execFileSync('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER'], { input: Buffer.from(contents, 'hex') }).toString();
}

/** A text string of the signature dictionary, written as UTF-16BE hex with a byte order mark. */
function dictionaryText(pdf: Buffer, key: string): string {
  const hex = new RegExp(`/${key}\\s*<FEFF([0-9A-F]*)>`, 'i').exec(pdf.toString('latin1'))![1]!;
  return Buffer.from(hex, 'hex').swap16().toString('utf16le');
}

describe('signing', () => {
  it('signs last, and pdfsig calls the signature valid for a trusted certificate', async () => {
    const signed = await finishPdf(await bodyPdf(), {
      watermark: { text: 'COPY', opacity: 0.2 },
      metadata: { title: 'Contract 7' },
      signature: { key, name: 'ACME Invoicing GmbH', reason: 'Issued by ACME – Größe', location: 'Berlin' },
    });
    const report = ca.pdfsig(signed);
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Certificate Validation: Certificate is Trusted.');
    expect(report).toContain('Signer Certificate Common Name: ACME Invoicing GmbH');
    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    expect(report).toContain('Signing Hash Algorithm: SHA-256');
    expect(report).toContain('Signed Ranges: [0 - ');
    expect(report).toContain('Total document signed');
    expect(report).toContain('Signer full Distinguished Name:');
    expect(report).toMatch(/Signature Field Name: Signature\d+/);
    // This poppler does not print reason and location: read them from the signature dictionary (UTF-16).
    expect(dictionaryText(signed, 'Reason')).toBe('Issued by ACME – Größe');
    expect(dictionaryText(signed, 'Location')).toBe('Berlin');
    const text = execFileSync('pdftotext', ['-raw', '-', '-'], { input: signed }).toString();
    expect(text).toContain('Contract page 2');
    expect(text.replace(/\s/g, '')).toContain('COPY');
  });

  it('writes the CMS PAdES B-B asks for: SHA-256, signing-certificate-v2, no signing-time, detached', async () => {
    const signed = await finishPdf(await bodyPdf(), { signature: { key, name: 'ACME Invoicing GmbH' } });
    const dump = cmsDump(signed);
    expect(dump).toContain('contentType: pkcs7-signedData');
    expect(dump).toContain('eContentType: pkcs7-data');
    expect(dump).toMatch(/eContent: <ABSENT>/);
    expect(dump).toContain('algorithm: sha256');
    expect(dump).toContain('object: contentType');
    expect(dump).toContain('object: messageDigest');
    expect(dump).toMatch(/object: (id-smime-aa-signingCertificateV2|undefined \(1\.2\.840\.113549\.1\.9\.16\.2\.47\))/);
    expect(dump).not.toContain('signingTime');
  });

  it('breaks visibly when a byte of the signed file changes', async () => {
    const signed = await finishPdf(await bodyPdf(), { signature: { key, name: 'ACME Invoicing GmbH' } });
    const tampered = Buffer.from(signed.toString('latin1').replace('Contract page 1', 'Contract page 9'), 'latin1');
    // The text may be compressed; change a byte inside the first signed range instead if it was.
    if (tampered.equals(signed)) tampered[200] = tampered[200]! ^ 1;
    expect(ca.pdfsig(tampered)).not.toContain('Signature Validation: Signature is Valid.');
  });

  it('is not trusted by a pdfsig that does not know the CA', async () => {
    const other = makeSigningCa('another CA');
    try {
      const signed = await finishPdf(await bodyPdf(), { signature: { key, name: 'ACME Invoicing GmbH' } });
      const report = other.pdfsig(signed);
      expect(report).toContain('Signature Validation: Signature is Valid.');
      expect(report).not.toContain('Certificate Validation: Certificate is Trusted.');
    } finally {
      other.cleanup();
    }
  });

  const PLACEHOLDER_TEXT = '/ByteRange [0 /********** /********** /**********]';

  it.each([
    ['a metadata title (XMP) that copies the byte range placeholder', { title: PLACEHOLDER_TEXT }, undefined],
    ['a metadata title (XMP) that opens a byte range and never closes it', { title: '/ByteRange [' }, undefined],
    ['a metadata title (XMP) naming /ByteRange without a bracket', { title: 'Contract /ByteRange' }, undefined],
    ["the converter's own title, a literal string in the information dictionary (Chromium's <title>)", undefined, PLACEHOLDER_TEXT],
  ])('signs a PDF with %s', async (_case, metadata, producerTitle) => {
    const pdf = await PDFDocument.load(await bodyPdf(), { updateMetadata: false });
    if (producerTitle) pdf.context.lookup(pdf.context.trailerInfo.Info, PDFDict).set(PDFName.of('Title'), PDFString.of(producerTitle));
    const signed = await finishPdf(Buffer.from(await pdf.save()), { metadata, signature: { key, name: 'ACME Invoicing GmbH' } });
    const report = ca.pdfsig(signed);
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Total document signed');
    expect(execFileSync('pdfinfo', ['-'], { input: signed }).toString().split('\n')).toContain(`Title:           ${metadata?.title ?? producerTitle}`);
  });

  it('makes room for the whole CMS, even when the issuer name (in it three times) is long', async () => {
    const longNamed = makeSigningCa(`docgen test CA ${'with a very long name '.repeat(140)}`);
    try {
      const issued = longNamed.issue();
      const signed = await finishPdf(await bodyPdf(), { signature: { key: readPkcs12(issued.p12, issued.password), name: 'ACME Invoicing GmbH' } });
      expect(longNamed.pdfsig(signed)).toContain('Signature Validation: Signature is Valid.');
    } finally {
      longNamed.cleanup();
    }
  });

  it('refuses to sign and encrypt together', async () => {
    await expect(
      finishPdf(await bodyPdf(), {
        signature: { key, name: 'x' },
        encryption: { userPassword: 'a', ownerPassword: 'b', permissions: { print: true, copy: true, modify: true } },
      }),
    ).rejects.toThrow(FinishingInputError);
  });
});
