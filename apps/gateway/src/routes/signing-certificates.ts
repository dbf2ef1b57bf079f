import * as access from '@docgen/access';
import { presentSigningCertificate } from '@docgen/contracts';
import type { Database } from '@docgen/db';
import type { SecretsKeyring } from '@docgen/security';
import type { UntrustedWork } from '@docgen/untrusted-work';
import { HttpError } from '../errors';
import { requireCaller } from '../middleware/authenticate';
import { singleFileUpload } from '../middleware/single-file-upload';
import type { OperationHandler, OperationHandlers } from '../operations/operation-handler';

/** A PKCS#12 with a key and a chain of a few certificates is a few KiB; this is ample. */
export const MAX_CERTIFICATE_BYTES = 64 * 1024;

/**
 * The environment's PDF signing certificate: uploaded by an admin in a session, listed and
 * deleted by an admin or an API key (API.md §13; the authorize middleware checks). The
 * PKCS#12 and its password are used once, in memory, and never logged.
 */
export function signingCertificateHandlers({
  db,
  keyring,
  untrusted,
}: {
  db: Database;
  keyring: SecretsKeyring | undefined;
  /** Opens the uploaded file off the event loop, under the upload check's time and memory bounds. */
  untrusted: UntrustedWork;
}): OperationHandlers<'uploadSigningCertificate' | 'listSigningCertificates' | 'deleteSigningCertificate'> {
  const upload: OperationHandler<'uploadSigningCertificate'> = async ({ req, body, query, reply }) => {
    const { organization, session } = requireCaller(req);
    if (!req.file || req.file.size === 0) {
      throw new HttpError('validation_failed', 'No certificate; send the .p12 or .pfx file in the multipart field "file"', {
        errors: [{ path: 'file', message: 'Required' }],
      });
    }
    const certificate = await access.uploadSigningCertificate(
      db,
      keyring,
      {
        organizationId: organization.id,
        isUat: body.is_uat || query.is_uat,
        file: req.file.buffer,
        password: body.password ?? '',
        createdBy: session?.user.id,
      },
      (file, password) => untrusted.readPkcs12(organization.id, file, password),
    );
    req.log.info(
      { signingCertificateId: certificate.id, isUat: certificate.isUat, notAfter: certificate.notAfter, userId: session?.user.id },
      'signing certificate stored',
    );
    reply(201, presentSigningCertificate(certificate));
  };

  const list: OperationHandler<'listSigningCertificates'> = async ({ req, query, reply }) => {
    const { organization } = requireCaller(req);
    reply(200, { items: (await access.listSigningCertificates(db, organization.id, query.is_uat)).map(presentSigningCertificate) });
  };

  const remove: OperationHandler<'deleteSigningCertificate'> = async ({ req, params, query, reply }) => {
    const { organization, session, apiKey } = requireCaller(req);
    await access.deleteSigningCertificate(db, { id: params.id, organizationId: organization.id, isUat: query.is_uat });
    req.log.info({ signingCertificateId: params.id, userId: session?.user.id, apiKeyId: apiKey?.id }, 'signing certificate deleted');
    reply(204);
  };

  return {
    uploadSigningCertificate: { before: [singleFileUpload(MAX_CERTIFICATE_BYTES, 'the certificate')], handle: upload },
    listSigningCertificates: list,
    deleteSigningCertificate: remove,
  };
}
