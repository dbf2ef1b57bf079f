import { z } from 'zod';
import { BinaryFile, IsUatParam, Timestamp } from './common';
import { apiSchemas } from './registry';

export const SigningCertificateUpload = z.object({
  file: BinaryFile.describe('The certificate and its private key as PKCS#12 (.p12 or .pfx), RSA keys only; at most 64 KiB.'),
  password: z.string().max(1024).optional().describe("The PKCS#12 file's password (empty when it has none). Used once, never stored."),
  is_uat: IsUatParam,
});

export const SigningCertificate = z
  .object({
    id: z.uuid(),
    subject: z.string().describe('The certificate\'s subject, e.g. "CN=ACME Invoicing GmbH, O=ACME".'),
    issuer: z.string(),
    not_before: Timestamp,
    not_after: Timestamp,
    created_at: Timestamp,
  })
  .describe('A signing certificate; its private key is never shown.')
  .register(apiSchemas, { id: 'SigningCertificate' });

export const SigningCertificateList = z
  .object({ items: z.array(SigningCertificate).describe("The environment's certificate, or none.") })
  .register(apiSchemas, { id: 'SigningCertificateList' });

export interface SigningCertificateRecord {
  id: string;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  createdAt: Date;
}

export function presentSigningCertificate(certificate: SigningCertificateRecord): z.output<typeof SigningCertificate> {
  return {
    id: certificate.id,
    subject: certificate.subject,
    issuer: certificate.issuer,
    not_before: certificate.notBefore.toISOString(),
    not_after: certificate.notAfter.toISOString(),
    created_at: certificate.createdAt.toISOString(),
  };
}
