import { createPrivateKey, randomBytes } from 'node:crypto';
import { secretsKeyring } from '@docgen/security';
import { createTestDatabase, makeSigningCa, seedOrganization, type SeededOrganization, type TestDatabase, type TestSigningCa } from '@docgen/testing';
import { AccessError } from '../errors';
import {
  deleteSigningCertificate,
  hasSigningCertificate,
  listSigningCertificates,
  loadSigningMaterial,
  rewrapSigningKeys,
  signingCertificateStatus,
  uploadSigningCertificate,
} from './signing-certificates';

const DAY_MS = 86_400_000;
const newKey = () => randomBytes(32).toString('base64');

describe('signing certificates', () => {
  let database: TestDatabase;
  let a: SeededOrganization;
  let b: SeededOrganization;
  let ca: TestSigningCa;
  const firstKey = newKey();
  const keyring = secretsKeyring(firstKey)!;

  beforeAll(async () => {
    database = await createTestDatabase();
    a = await seedOrganization(database.db);
    b = await seedOrganization(database.db);
    ca = makeSigningCa();
  });
  afterAll(async () => {
    ca.cleanup();
    await database.drop();
  });

  const problem = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AccessError);
    return error as AccessError;
  };

  it('stores one per environment, replacing the previous one, and never the key in the clear', async () => {
    const issued = ca.issue({ commonName: 'ACME Invoicing GmbH' });
    const first = await uploadSigningCertificate(database.db, keyring, {
      organizationId: a.organizationId,
      isUat: false,
      file: issued.p12,
      password: issued.password,
    });
    expect(first.subject).toBe('CN=ACME Invoicing GmbH, O=docgen tests');
    expect(first.issuer).toBe('CN=docgen test signing CA, O=docgen tests');
    expect(first.notAfter.getTime()).toBeGreaterThan(Date.now());
    const again = ca.issue({ commonName: 'ACME Contracts' });
    const second = await uploadSigningCertificate(database.db, keyring, {
      organizationId: a.organizationId,
      isUat: false,
      file: again.p12,
      password: again.password,
    });
    expect(second.id).not.toBe(first.id);
    expect((await listSigningCertificates(database.db, a.organizationId, false)).map((c) => c.subject)).toEqual(['CN=ACME Contracts, O=docgen tests']);
    expect(await listSigningCertificates(database.db, a.organizationId, true)).toEqual([]);
    expect(await hasSigningCertificate(database.db, b.organizationId, false)).toBe(false);

    const [row] = await database.db.$queryRaw<
      { text: string }[]
    >`SELECT row_to_json(s)::text AS text FROM signing_certificates s WHERE id = ${second.id}::uuid`;
    expect(row!.text).not.toContain('PRIVATE KEY');
    expect(row!.text).not.toContain(again.password);
    const material = await loadSigningMaterial(database.db, keyring, { organizationId: a.organizationId, isUat: false });
    expect(material?.privateKeyPem).toContain('-----BEGIN PRIVATE KEY-----');
    expect(material?.commonName).toBe('ACME Contracts');
    expect(material?.certificatePems).toHaveLength(2); // the signer's and the CA's
    expect(await loadSigningMaterial(database.db, keyring, { organizationId: a.organizationId, isUat: true })).toBeUndefined();
  });

  it('refuses a wrong password, garbage, a file without a key, an expired or not yet valid certificate', async () => {
    const issued = ca.issue();
    const upload = (file: Buffer, password: string) =>
      uploadSigningCertificate(database.db, keyring, { organizationId: b.organizationId, isUat: true, file, password });
    const wrong = await problem(upload(issued.p12, 'not the password'));
    expect([wrong.code, wrong.problems[0]?.path, wrong.message]).toEqual([
      'signing_certificate_invalid',
      'password',
      'The password does not open this PKCS#12 file',
    ]);
    expect((await problem(upload(Buffer.from('%PDF-1.7 not a p12'), 'x'))).problems[0]?.path).toBe('file');
    expect((await problem(upload(randomBytes(2000), 'x'))).code).toBe('signing_certificate_invalid');
    const noKey = ca.issue({ withoutKey: true });
    expect((await problem(upload(noKey.p12, noKey.password))).message).toMatch(/no private key/);
    const expired = ca.issue({ notBefore: new Date(Date.now() - 30 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) });
    expect((await problem(upload(expired.p12, expired.password))).message).toMatch(/^The certificate expired on /);
    const future = ca.issue({ notBefore: new Date(Date.now() + DAY_MS), notAfter: new Date(Date.now() + 30 * DAY_MS) });
    expect((await problem(upload(future.p12, future.password))).message).toMatch(/^The certificate is not valid before /);
    expect(await hasSigningCertificate(database.db, b.organizationId, true)).toBe(false);
  });

  it.each([
    [{ keyBits: 1024 }, 'The private key is a 1024-bit RSA key with public exponent 65537'],
    [{ keyBits: 16384, madeUpKey: true }, 'The private key is a 16384-bit RSA key with public exponent 65537'],
    [{ keyBits: 2048, publicExponent: 3 }, 'The private key is a 2048-bit RSA key with public exponent 3'],
  ])('refuses a signing key outside RSA 2048 to 8192 bits with exponent 65537 (%j), saying what is allowed', async (key, described) => {
    const issued = ca.issue(key);
    const refused = await problem(
      uploadSigningCertificate(database.db, keyring, { organizationId: b.organizationId, isUat: true, file: issued.p12, password: issued.password }),
    );
    expect([refused.code, refused.problems[0]?.path, refused.message]).toEqual([
      'signing_certificate_invalid',
      'file',
      `${described}; only RSA keys of 2048 to 8192 bits with public exponent 65537 are supported`,
    ]);
    expect(await hasSigningCertificate(database.db, b.organizationId, true)).toBe(false);
  });

  it('refuses a made-up key whose public numbers match its certificate: its primes do not make its modulus', async () => {
    const issued = ca.issue({ madeUpKey: true });
    const refused = await problem(
      uploadSigningCertificate(database.db, keyring, { organizationId: b.organizationId, isUat: true, file: issued.p12, password: issued.password }),
    );
    expect([refused.code, refused.problems[0]?.path, refused.message]).toEqual([
      'signing_certificate_invalid',
      'file',
      'The private key is not a consistent RSA key (its primes do not make its modulus); export it again',
    ]);
  });

  it('refuses a key whose primes are far from equal in size: consistent, but four times the work a signature', async () => {
    const issued = ca.issue({ unequalPrimes: true });
    const refused = await problem(
      uploadSigningCertificate(database.db, keyring, { organizationId: b.organizationId, isUat: true, file: issued.p12, password: issued.password }),
    );
    expect([refused.code, refused.message]).toEqual([
      'signing_certificate_invalid',
      'The private key is not a usual RSA key (its two primes are far from equal in size); make a new key',
    ]);
  });

  it('stores a key rebuilt from its primes, not the private exponent and CRT numbers its file carries (a padded exponent costs seconds a signature)', async () => {
    const issued = ca.issue({ paddedPrivateExponentBits: 100_000 });
    await uploadSigningCertificate(database.db, keyring, { organizationId: b.organizationId, isUat: true, file: issued.p12, password: issued.password });
    const material = await loadSigningMaterial(database.db, keyring, { organizationId: b.organizationId, isUat: true });
    const stored = createPrivateKey(material!.privateKeyPem).export({ format: 'jwk' });
    const bytes = (part: string | undefined) => Buffer.from(part ?? '', 'base64url').length;
    expect(bytes(stored.d)).toBeLessThanOrEqual(bytes(stored.n));
    expect(createPrivateKey(issued.privateKeyPem).export({ format: 'jwk' }).n).toBe(stored.n);
    await deleteSigningCertificate(database.db, { organizationId: b.organizationId, isUat: true, id: material!.certificate.id });
  });

  it('needs SECRETS_KEY to store or use a key', async () => {
    const issued = ca.issue();
    const missing = await problem(
      uploadSigningCertificate(database.db, undefined, { organizationId: b.organizationId, isUat: false, file: issued.p12, password: issued.password }),
    );
    expect(missing.code).toBe('secrets_key_missing');
    expect((await problem(loadSigningMaterial(database.db, undefined, { organizationId: a.organizationId, isUat: false }))).code).toBe('secrets_key_missing');
  });

  it('deletes only within the organisation and environment', async () => {
    const issued = ca.issue();
    const cert = await uploadSigningCertificate(database.db, keyring, {
      organizationId: b.organizationId,
      isUat: false,
      file: issued.p12,
      password: issued.password,
    });
    for (const scope of [
      { organizationId: a.organizationId, isUat: false },
      { organizationId: b.organizationId, isUat: true },
    ]) {
      expect((await problem(deleteSigningCertificate(database.db, { id: cert.id, ...scope }))).code).toBe('signing_certificate_not_found');
    }
    expect((await problem(deleteSigningCertificate(database.db, { id: 'nope', organizationId: b.organizationId, isUat: false }))).code).toBe(
      'signing_certificate_not_found',
    );
    await deleteSigningCertificate(database.db, { id: cert.id, organizationId: b.organizationId, isUat: false });
    expect(await hasSigningCertificate(database.db, b.organizationId, false)).toBe(false);
  });

  it('survives a SECRETS_KEY rotation: the old key opens until rewrapped, then only the new one is needed', async () => {
    const secondKey = newKey();
    const rotated = secretsKeyring(secondKey, firstKey)!;
    const scope = { organizationId: a.organizationId, isUat: false };
    expect(await loadSigningMaterial(database.db, rotated, scope)).toBeDefined();
    expect(await rewrapSigningKeys(database.db, rotated)).toEqual({ rewrapped: 1, total: 1 });
    expect(await rewrapSigningKeys(database.db, rotated)).toEqual({ rewrapped: 0, total: 1 });
    const material = await loadSigningMaterial(database.db, secretsKeyring(secondKey)!, scope);
    expect(material?.privateKeyPem).toContain('PRIVATE KEY');
    await expect(loadSigningMaterial(database.db, keyring, scope)).rejects.toThrow(/neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS/);
  });

  it('does not open an envelope moved to another certificate row', async () => {
    const fresh = await seedOrganization(database.db);
    const own = ca.issue();
    const other = ca.issue();
    await uploadSigningCertificate(database.db, keyring, { organizationId: fresh.organizationId, isUat: false, file: own.p12, password: own.password });
    await uploadSigningCertificate(database.db, keyring, { organizationId: fresh.organizationId, isUat: true, file: other.p12, password: other.password });
    await database.db
      .$executeRaw`UPDATE signing_certificates SET key_envelope = (SELECT key_envelope FROM signing_certificates WHERE organization_id = ${fresh.organizationId}::uuid AND NOT is_uat) WHERE organization_id = ${fresh.organizationId}::uuid AND is_uat`;
    await expect(loadSigningMaterial(database.db, keyring, { organizationId: fresh.organizationId, isUat: true })).rejects.toThrow(
      /tampered with, or moved from another record/,
    );
  });

  it('counts only a certificate that has not expired as one to sign with', async () => {
    const fresh = await seedOrganization(database.db);
    const issued = ca.issue();
    await uploadSigningCertificate(database.db, keyring, { organizationId: fresh.organizationId, isUat: false, file: issued.p12, password: issued.password });
    expect(await signingCertificateStatus(database.db, fresh.organizationId, false)).toEqual({ current: true, notAfter: expect.any(Date) });
    expect(await hasSigningCertificate(database.db, fresh.organizationId, false)).toBe(true);

    await database.db
      .$executeRaw`UPDATE signing_certificates SET not_after = now() - interval '1 second' WHERE organization_id = ${fresh.organizationId}::uuid`;
    expect(await signingCertificateStatus(database.db, fresh.organizationId, false)).toEqual({ current: false, notAfter: expect.any(Date) });
    expect(await hasSigningCertificate(database.db, fresh.organizationId, false)).toBe(false);
    expect(await signingCertificateStatus(database.db, fresh.organizationId, true)).toBeUndefined();
  });
});
