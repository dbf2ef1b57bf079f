import { randomUUID, X509Certificate } from 'node:crypto';
import { isUuid } from '@docgen/contracts';
import type { Database, SigningCertificate } from '@docgen/db';
import { openSecret, Pkcs12Error, readPkcs12, rewrapSecret, sealSecret, type Pkcs12Contents, type SecretEnvelope, type SecretsKeyring } from '@docgen/security';
import { AccessError, secretsKeyMissing, signingCertificateNotFound } from '../errors';

/** What is shown of a certificate: never its key. */
export type SigningCertificateInfo = Omit<SigningCertificate, 'keyEnvelope' | 'certificateChain'>;

/** A private key as the render worker signs with it, and its certificates (PEM, the signer's first). */
export interface SigningMaterial {
  certificate: SigningCertificateInfo;
  commonName: string;
  privateKeyPem: string;
  certificatePems: string[];
}

const INFO_COLUMNS = {
  id: true,
  organizationId: true,
  isUat: true,
  subject: true,
  issuer: true,
  notBefore: true,
  notAfter: true,
  createdBy: true,
  createdAt: true,
} as const;

/** The envelope's associated data: a key sealed for one certificate row opens for no other. */
const envelopeContext = (id: string, organizationId: string) => `signing-certificate:${organizationId}:${id}`;

/** A distinguished name as one line, in the certificate's order ("O=ACME, CN=ACME Invoicing"). */
const oneLine = (name: string) => name.split('\n').join(', ');

const invalid = (path: 'file' | 'password', message: string) => new AccessError('signing_certificate_invalid', message, [{ path, message }]);

export interface UploadSigningCertificate {
  organizationId: string;
  isUat: boolean;
  file: Buffer;
  password: string;
  createdBy?: string;
  now?: Date;
}

/** Opens a PKCS#12 with its password: the gateway's does it in a worker thread (UntrustedWork.readPkcs12). */
export type OpenPkcs12 = (file: Buffer, password: string) => Promise<Pkcs12Contents>;

/**
 * Stores the environment's signing certificate from a PKCS#12 file, replacing the previous
 * one in the same statement. The file is opened with its password here and never stored: the
 * private key goes into an envelope sealed with SECRETS_KEY, the certificates as PEM. Refuses
 * a wrong password, a file without a key or with a key the signer does not take
 * (readPkcs12), and a certificate that is expired or not yet valid.
 */
export async function uploadSigningCertificate(
  db: Database,
  keyring: SecretsKeyring | undefined,
  input: UploadSigningCertificate,
  open: OpenPkcs12 = async (file, password) => readPkcs12(file, password),
): Promise<SigningCertificateInfo> {
  if (!keyring) throw secretsKeyMissing();
  let contents: Pkcs12Contents;
  try {
    contents = await open(input.file, input.password);
  } catch (error) {
    if (error instanceof Pkcs12Error) throw invalid(error.problem === 'wrong_password' ? 'password' : 'file', error.message);
    throw error;
  }
  const { certificate } = contents;
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  const now = input.now ?? new Date();
  if (notAfter <= now) throw invalid('file', `The certificate expired on ${notAfter.toISOString()}; upload a current one`);
  if (notBefore > now) throw invalid('file', `The certificate is not valid before ${notBefore.toISOString()}; upload it from then on`);

  const id = randomUUID();
  const envelope = sealSecret(Buffer.from(contents.privateKeyPem), keyring, envelopeContext(id, input.organizationId));
  const [row] = await db.$queryRaw<SigningCertificateInfo[]>`
    INSERT INTO signing_certificates (id, organization_id, is_uat, subject, issuer, not_before, not_after, certificate_chain, key_envelope, created_by)
    VALUES (${id}::uuid, ${input.organizationId}::uuid, ${input.isUat}, ${oneLine(certificate.subject)}, ${oneLine(certificate.issuer)},
            ${notBefore}, ${notAfter}, ${contents.certificatePems.join('')}, ${JSON.stringify(envelope)}::jsonb, ${input.createdBy ?? null}::uuid)
    ON CONFLICT (organization_id, is_uat) DO UPDATE SET
      id = EXCLUDED.id, subject = EXCLUDED.subject, issuer = EXCLUDED.issuer, not_before = EXCLUDED.not_before,
      not_after = EXCLUDED.not_after, certificate_chain = EXCLUDED.certificate_chain, key_envelope = EXCLUDED.key_envelope,
      created_by = EXCLUDED.created_by, created_at = now()
    RETURNING id, organization_id AS "organizationId", is_uat AS "isUat", subject, issuer, not_before AS "notBefore",
              not_after AS "notAfter", created_by AS "createdBy", created_at AS "createdAt"`;
  return row!;
}

/** The environment's certificate (zero or one), without its key. */
export const listSigningCertificates = (db: Database, organizationId: string, isUat: boolean): Promise<SigningCertificateInfo[]> =>
  db.signingCertificate.findMany({ where: { organizationId, isUat }, select: INFO_COLUMNS });

/** The environment's certificate's expiry, and whether it is still current (by the database's clock); undefined when none is uploaded. */
export async function signingCertificateStatus(
  db: Database,
  organizationId: string,
  isUat: boolean,
): Promise<{ notAfter: Date; current: boolean } | undefined> {
  const [row] = await db.$queryRaw<{ notAfter: Date; current: boolean }[]>`
    SELECT not_after AS "notAfter", not_after > now() AS current FROM signing_certificates
    WHERE organization_id = ${organizationId}::uuid AND is_uat = ${isUat}`;
  return row;
}

/** Whether the environment has a certificate to sign with: uploaded and not expired. */
export async function hasSigningCertificate(db: Database, organizationId: string, isUat: boolean): Promise<boolean> {
  return (await signingCertificateStatus(db, organizationId, isUat))?.current ?? false;
}

/** Deletes it for good, key and all; another organisation's or environment's id is not found. */
export async function deleteSigningCertificate(db: Database, input: { id: string; organizationId: string; isUat: boolean }): Promise<void> {
  if (!isUuid(input.id)) throw signingCertificateNotFound();
  const { count } = await db.signingCertificate.deleteMany({ where: { id: input.id, organizationId: input.organizationId, isUat: input.isUat } });
  if (count === 0) throw signingCertificateNotFound();
}

/**
 * The environment's key, opened: only the render worker calls this, right before it signs,
 * and keeps the key in memory for that one document. Undefined when there is no certificate.
 */
export async function loadSigningMaterial(
  db: Database,
  keyring: SecretsKeyring | undefined,
  scope: { organizationId: string; isUat: boolean },
): Promise<SigningMaterial | undefined> {
  const row = await db.signingCertificate.findUnique({ where: { organizationId_isUat: scope } });
  if (!row) return undefined;
  if (!keyring) throw secretsKeyMissing();
  const privateKeyPem = openSecret(row.keyEnvelope as unknown as SecretEnvelope, keyring, envelopeContext(row.id, row.organizationId)).toString();
  const certificatePems = row.certificateChain.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
  const signer = new X509Certificate(certificatePems[0]!);
  const commonName = /(?:^|\n)CN=([^\n]+)/.exec(signer.subject)?.[1] ?? oneLine(signer.subject);
  const { keyEnvelope: _key, certificateChain: _chain, ...certificate } = row;
  return { certificate, commonName, privateKeyPem, certificatePems };
}

/**
 * Re-wraps every certificate's data key with the current SECRETS_KEY (after a rotation:
 * the old key in SECRETS_KEY_PREVIOUS). Returns how many changed; the keys' ciphertexts
 * stay as they are. Each row is updated only if its envelope did not change meanwhile.
 */
export async function rewrapSigningKeys(db: Database, keyring: SecretsKeyring | undefined): Promise<{ rewrapped: number; total: number }> {
  if (!keyring) throw secretsKeyMissing();
  const rows = await db.signingCertificate.findMany({ select: { id: true, organizationId: true, keyEnvelope: true } });
  let rewrapped = 0;
  for (const row of rows) {
    const envelope = row.keyEnvelope as unknown as SecretEnvelope;
    const next = rewrapSecret(envelope, keyring, envelopeContext(row.id, row.organizationId));
    if (next === envelope) continue;
    const { count } = await db.signingCertificate.updateMany({
      where: { id: row.id, keyEnvelope: { equals: row.keyEnvelope as object } },
      data: { keyEnvelope: next as unknown as object },
    });
    rewrapped += count;
  }
  return { rewrapped, total: rows.length };
}
