import { signingCertificateStatus } from '@docgen/access';
import type { Database } from '@docgen/db';
import { HttpError } from '../errors';

export const NO_SIGNING_CERTIFICATE = "needs the organisation's signing certificate for this environment, and none is uploaded";

const expiredCertificate = (notAfter: Date) =>
  `needs the organisation's signing certificate for this environment, and it expired on ${notAfter.toISOString()}; an admin must upload a current one`;

/** `pdf_options.sign` needs the environment's signing certificate, not expired (API.md §13): 422 before anything is queued. */
export async function requireSigningCertificate(
  db: Database,
  organizationId: string,
  isUat: boolean,
  pdfOptions: { sign?: unknown } | undefined,
): Promise<void> {
  if (!pdfOptions?.sign) return;
  const certificate = await signingCertificateStatus(db, organizationId, isUat);
  if (certificate?.current) return;
  const message = certificate ? expiredCertificate(certificate.notAfter) : NO_SIGNING_CERTIFICATE;
  throw new HttpError('validation_failed', `Invalid pdf_options.sign: ${message}`, { errors: [{ path: 'pdf_options.sign', message }] });
}
