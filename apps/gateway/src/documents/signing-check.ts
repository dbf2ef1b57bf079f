import { hasSigningCertificate } from '@docgen/access';
import type { Database } from '@docgen/db';
import { HttpError } from '../errors';

export const NO_SIGNING_CERTIFICATE = "needs the organisation's signing certificate for this environment, and none is uploaded";

/** `pdf_options.sign` needs the environment's signing certificate (API.md §13): 422 before anything is queued. */
export async function requireSigningCertificate(
  db: Database,
  organizationId: string,
  isUat: boolean,
  pdfOptions: { sign?: unknown } | undefined,
): Promise<void> {
  if (!pdfOptions?.sign || (await hasSigningCertificate(db, organizationId, isUat))) return;
  throw new HttpError('validation_failed', `Invalid pdf_options.sign: ${NO_SIGNING_CERTIFICATE}`, {
    errors: [{ path: 'pdf_options.sign', message: NO_SIGNING_CERTIFICATE }],
  });
}
