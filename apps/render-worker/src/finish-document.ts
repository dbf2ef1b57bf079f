import { createPrivateKey, randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { REDACTED, type PdfOptions } from '@docgen/contracts';
import { FinishingInputError, finishPdf, type FinishingOptions } from '@docgen/finishing';
import { deleteRenderSecrets, readRenderSecrets, type RenderSecrets } from '@docgen/queue';
import { AccessError, type SigningMaterial } from '@docgen/access';
import { checkedSigningKey, Pkcs12Error, SecretEnvelopeError } from '@docgen/security';

/** Where the worker finds a document's passwords (deleted once its render is over). */
export interface RenderSecretsStore {
  read(documentId: string): Promise<RenderSecrets | undefined>;
  delete(documentId: string): Promise<void>;
}

export const renderSecretsStore = (queue: Parameters<typeof readRenderSecrets>[0]): RenderSecretsStore => ({
  read: (documentId) => readRenderSecrets(queue, documentId),
  delete: (documentId) => deleteRenderSecrets(queue, documentId),
});

export interface FinishingDeps {
  /** UAT_WATERMARK: drawn on UAT documents that ask for no watermark of their own; empty for none. */
  uatWatermark?: string;
  renderSecrets?: RenderSecretsStore;
  /**
   * The environment's signing key, opened (SECRETS_KEY): read right before signing and kept
   * only for this document. Throws when SECRETS_KEY is missing or does not open it.
   */
  signingMaterial?: (scope: { organizationId: string; isUat: boolean }) => Promise<SigningMaterial | undefined>;
}

interface FinishedDocument {
  id: string;
  organizationId: string;
  /** The environment: its UAT watermark and its signing certificate. */
  isUat: boolean;
  pdfOptions: unknown;
  /** A merge's pages already carry the UAT watermark of the documents they come from. */
  pagesMarkedUat?: boolean;
}

const UAT_OPACITY = 0.15;

/** The finishing step (watermark, metadata, encryption) for one rendered PDF, whatever engine made it. */
export async function finishDocumentPdf(pdf: Buffer, doc: FinishedDocument, deps: FinishingDeps): Promise<Buffer> {
  return finishPdf(pdf, await finishingOptions(doc, deps));
}

/** Whether the document's PDF passwords were kept aside for its render (its stored options show them redacted). */
export function hasRenderSecrets(doc: Pick<FinishedDocument, 'pdfOptions'>): boolean {
  const asked = (doc.pdfOptions ?? {}) as z.output<typeof PdfOptions>;
  return asked.password === REDACTED || asked.owner_password === REDACTED;
}

async function finishingOptions(doc: FinishedDocument, deps: FinishingDeps): Promise<FinishingOptions> {
  const asked = (doc.pdfOptions ?? {}) as z.output<typeof PdfOptions>;
  const options: FinishingOptions = {};
  if (asked.watermark) options.watermark = asked.watermark;
  else if (doc.isUat && !doc.pagesMarkedUat && deps.uatWatermark) options.watermark = { text: deps.uatWatermark, opacity: UAT_OPACITY };
  if (asked.metadata) options.metadata = asked.metadata;
  if (asked.password || asked.owner_password || asked.permissions) {
    const secrets = hasRenderSecrets(doc) ? await deps.renderSecrets?.read(doc.id) : {};
    if (!secrets) {
      throw new FinishingInputError(
        'The PDF passwords are no longer available (they are kept only until the render, at most 24 hours); request the document again with them, e.g. with the same X-Idempotency-Key',
      );
    }
    options.encryption = {
      userPassword: secrets.password ?? '',
      // Without an owner password nobody may lift the permissions: a random one nobody knows.
      ownerPassword: secrets.owner_password ?? randomBytes(24).toString('base64url'),
      permissions: { print: true, copy: true, modify: true, ...asked.permissions },
    };
  }
  if (asked.sign) options.signature = await signature(doc, asked.sign, deps);
  return options;
}

const AGAIN = 'and request the document again';

async function signature(doc: FinishedDocument, asked: { reason?: string; location?: string }, deps: FinishingDeps): Promise<FinishingOptions['signature']> {
  let material: SigningMaterial | undefined;
  try {
    material = await deps.signingMaterial?.({ organizationId: doc.organizationId, isUat: doc.isUat });
  } catch (error) {
    // SECRETS_KEY missing or not the one the key was sealed with: the operator's to fix, the message says what.
    if (error instanceof AccessError || error instanceof SecretEnvelopeError) {
      throw new FinishingInputError(`The PDF could not be signed: ${error.message}`);
    }
    throw error;
  }
  if (!material) {
    throw new FinishingInputError(
      `The PDF could not be signed: the organisation has no signing certificate for this environment any more; upload one ${AGAIN}`,
    );
  }
  const now = new Date();
  if (material.certificate.notAfter <= now) {
    throw new FinishingInputError(
      `The PDF could not be signed: the signing certificate expired on ${material.certificate.notAfter.toISOString()}; upload a current one ${AGAIN}`,
    );
  }
  // Checked and rebuilt here too, for keys stored before uploads were: a huge key, or a huge
  // private exponent behind wrong CRT numbers, would hold this thread for seconds to minutes.
  let privateKeyPem: string;
  try {
    privateKeyPem = checkedSigningKey(createPrivateKey(material.privateKeyPem)).export({ type: 'pkcs8', format: 'pem' }).toString();
  } catch (error) {
    if (!(error instanceof Pkcs12Error)) throw error;
    throw new FinishingInputError(
      `The PDF could not be signed: the signing certificate's key cannot be used (${error.message}); upload another certificate ${AGAIN}`,
    );
  }
  return {
    key: { privateKeyPem, certificatePems: material.certificatePems },
    name: material.commonName,
    reason: asked.reason,
    location: asked.location,
    signingTime: now,
  };
}
