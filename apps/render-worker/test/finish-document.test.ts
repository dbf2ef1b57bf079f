import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { FinishingInputError } from '@docgen/finishing';
import { secretsKeyMissing } from '@docgen/access';
import { readPkcs12 } from '@docgen/security';
import { makeSigningCa, pdfText, type SigningCertificateOptions } from '@docgen/testing';
import { finishDocumentPdf, type RenderSecretsStore } from '../src/finish-document';

async function onePagePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]).drawText('Body', { x: 60, y: 400, size: 20, font: await doc.embedFont(StandardFonts.Helvetica) });
  return Buffer.from(await doc.save());
}

const noSecrets: RenderSecretsStore = { read: () => Promise.resolve(undefined), delete: () => Promise.resolve() };

describe('finishDocumentPdf', () => {
  it('fails with what to do when the passwords are gone (expired before the render)', async () => {
    const doc = { id: 'd1', organizationId: 'o1', isUat: false, pdfOptions: { password: '***' } };
    const finishing = finishDocumentPdf(await onePagePdf(), doc, { renderSecrets: noSecrets });
    await expect(finishing).rejects.toThrow(FinishingInputError);
    await expect(finishing).rejects.toThrow(/request the document again with them/);
  });

  it('leaves a UAT document plain when UAT_WATERMARK is empty, and a production one always', async () => {
    const pdf = await onePagePdf();
    expect(await finishDocumentPdf(pdf, { id: 'd1', organizationId: 'o1', isUat: true, pdfOptions: null }, { uatWatermark: '' })).toBe(pdf);
    expect(await finishDocumentPdf(pdf, { id: 'd1', organizationId: 'o1', isUat: false, pdfOptions: null }, { uatWatermark: 'UAT' })).toBe(pdf);
    const marked = await finishDocumentPdf(pdf, { id: 'd1', organizationId: 'o1', isUat: true, pdfOptions: null }, { uatWatermark: 'TEST SYSTEM' });
    expect(pdfText(marked).replace(/\s+/g, '')).toContain('TESTSYSTEM');
  });

  describe('signing', () => {
    const doc = { id: 'd1', organizationId: 'o1', isUat: false, pdfOptions: { sign: { reason: 'Issued' } } };
    const ca = makeSigningCa();
    afterAll(() => ca.cleanup());
    const material = (notAfter: Date, key?: SigningCertificateOptions) => {
      const issued = ca.issue(key);
      // A key uploads refuse now is read around readPkcs12, as certificates stored before that check were.
      const { privateKeyPem, certificatePems } = key
        ? { privateKeyPem: issued.privateKeyPem, certificatePems: [issued.certificatePem] }
        : readPkcs12(issued.p12, issued.password);
      const certificate = {
        id: 'c1',
        organizationId: 'o1',
        isUat: false,
        subject: 'CN=x',
        issuer: 'CN=y',
        notBefore: new Date(0),
        notAfter,
        createdBy: null,
        createdAt: new Date(),
      };
      return { certificate, commonName: issued.commonName, privateKeyPem, certificatePems };
    };

    it("signs with the environment's key", async () => {
      const signed = await finishDocumentPdf(await onePagePdf(), doc, { signingMaterial: () => Promise.resolve(material(new Date(Date.now() + 86_400_000))) });
      expect(ca.pdfsig(signed)).toContain('Signature Validation: Signature is Valid.');
    });

    it.each([
      [
        'the certificate was deleted',
        () => Promise.resolve(undefined),
        /no signing certificate for this environment any more; upload one and request the document again/,
      ],
      [
        'the certificate expired since the request',
        () => Promise.resolve(material(new Date(Date.now() - 1000))),
        /the signing certificate expired on .*; upload a current one/,
      ],
      ['the worker has no SECRETS_KEY', () => Promise.reject(secretsKeyMissing()), /Signing certificates need SECRETS_KEY/],
      [
        "the certificate, stored before uploads were checked for it, has a key too large to sign with on the worker's thread",
        () => Promise.resolve(material(new Date(Date.now() + 86_400_000), { keyBits: 16384, madeUpKey: true })),
        "The PDF could not be signed: the signing certificate's key cannot be used (The private key is a 16384-bit RSA key with public exponent 65537; only RSA keys of 2048 to 8192 bits with public exponent 65537 are supported); upload another certificate and request the document again",
      ],
    ])('fails the document with what to do when %s', async (_case, signingMaterial, message) => {
      const finishing = finishDocumentPdf(await onePagePdf(), doc, { signingMaterial });
      await expect(finishing).rejects.toThrow(FinishingInputError);
      await expect(finishing).rejects.toThrow(message);
    });
  });
});
