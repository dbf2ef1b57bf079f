import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, generatePrimeSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import forge from 'node-forge';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface SigningCertificateOptions {
  /** Subject common name of the signer's certificate. */
  commonName?: string;
  notBefore?: Date;
  notAfter?: Date;
  /** Leave the private key out of the PKCS#12 (a certificate-only file). */
  withoutKey?: boolean;
  /** The signer's RSA key size (default 2048). */
  keyBits?: number;
  /** The signer's RSA public exponent (default 65537). */
  publicExponent?: number;
  /**
   * A made-up key: a random modulus of keyBits bits (certified as the public key) and random
   * private numbers, made in no time whatever its size; it signs nothing its certificate verifies.
   */
  madeUpKey?: boolean;
  /**
   * A real key whose private exponent is padded with a multiple of φ(n) to about this many
   * bits (still correct), beside wrong CRT numbers: OpenSSL falls back to exponentiating
   * with the padded exponent, so a signature costs seconds and still verifies.
   */
  paddedPrivateExponentBits?: number;
  /** A real key of keyBits bits whose primes are 64 and keyBits − 64 bits: consistent, and costly to sign with. */
  unequalPrimes?: boolean;
}

export interface TestSigningCertificate {
  /** The PKCS#12 as `openssl pkcs12 -export` writes it (OpenSSL 3: AES-256-CBC, PBKDF2). */
  p12: Buffer;
  password: string;
  commonName: string;
  caCommonName: string;
  /** The key and the signer's certificate as PEM, for tests that need them without opening the file. */
  privateKeyPem: string;
  certificatePem: string;
}

export interface TestSigningCa {
  caPem: string;
  /** A signer's PKCS#12 issued by this CA. */
  issue: (options?: SigningCertificateOptions) => TestSigningCertificate;
  /** An NSS database (for `pdfsig -nssdir`) that trusts this CA. */
  nssDir: string;
  /** `pdfsig` on a PDF with this CA trusted: its output, whatever its exit status. */
  pdfsig: (pdf: Uint8Array) => string;
  cleanup: () => void;
}

function certificate(
  subject: string,
  issuer: string,
  publicKey: forge.pki.rsa.PublicKey,
  signingKey: forge.pki.rsa.PrivateKey,
  options: { ca: boolean; notBefore: Date; notAfter: Date },
) {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(12))}`;
  cert.validity.notBefore = options.notBefore;
  cert.validity.notAfter = options.notAfter;
  cert.setSubject([
    { name: 'commonName', value: subject },
    { name: 'organizationName', value: 'docgen tests' },
  ]);
  cert.setIssuer([
    { name: 'commonName', value: issuer },
    { name: 'organizationName', value: 'docgen tests' },
  ]);
  cert.setExtensions(
    options.ca
      ? [
          { name: 'basicConstraints', cA: true, critical: true },
          { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
          { name: 'subjectKeyIdentifier' },
        ]
      : [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
          { name: 'subjectKeyIdentifier' },
        ],
  );
  cert.sign(signingKey, forge.md.sha256.create());
  return cert;
}

const randomNumber = (bits: number) => {
  const bytes = randomBytes(Math.ceil(bits / 8));
  bytes[0]! |= 0x80; // exactly `bits` bits (bits a multiple of 8)
  bytes[bytes.length - 1]! |= 1;
  return new forge.jsbn.BigInteger(bytes.toString('hex'), 16);
};

function signerKeys(options: SigningCertificateOptions): forge.pki.rsa.KeyPair {
  const bits = options.keyBits ?? 2048;
  const exponent = options.publicExponent ?? 65537;
  if (options.madeUpKey) {
    const n = randomNumber(bits);
    const e = new forge.jsbn.BigInteger(String(exponent), 10);
    const half = () => randomNumber(bits / 2);
    return {
      publicKey: forge.pki.setRsaPublicKey(n, e),
      privateKey: forge.pki.setRsaPrivateKey(n, e, randomNumber(bits), half(), half(), half(), half(), half()),
    };
  }
  if (options.unequalPrimes) return unequalPrimeKeys(bits, exponent);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: exponent });
  const key = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()) as forge.pki.rsa.PrivateKey;
  const publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  if (options.paddedPrivateExponentBits) {
    const one = forge.jsbn.BigInteger.ONE;
    const phi = key.p.subtract(one).multiply(key.q.subtract(one));
    const padded = key.d.add(phi.multiply(randomNumber(options.paddedPrivateExponentBits - bits)));
    return { publicKey, privateKey: forge.pki.setRsaPrivateKey(key.n, key.e, padded, key.p, key.q, one, one, one) };
  }
  return { privateKey: key, publicKey };
}

function unequalPrimeKeys(bits: number, exponent: number): forge.pki.rsa.KeyPair {
  const big = (value: bigint) => new forge.jsbn.BigInteger(value.toString(16), 16);
  const e = BigInt(exponent);
  const prime = (size: number): bigint => {
    for (;;) {
      const candidate = generatePrimeSync(size, { bigint: true });
      if ((candidate - 1n) % e !== 0n) return candidate;
    }
  };
  const [p, q] = [prime(64), prime(bits - 64)];
  const n = p * q;
  const d = big(e).modInverse(big((p - 1n) * (q - 1n)));
  const [P, Q] = [big(p), big(q)];
  const one = forge.jsbn.BigInteger.ONE;
  return {
    publicKey: forge.pki.setRsaPublicKey(big(n), big(e)),
    privateKey: forge.pki.setRsaPrivateKey(big(n), big(e), d, P, Q, d.mod(P.subtract(one)), d.mod(Q.subtract(one)), Q.modInverse(P)),
  };
}

/**
 * A throwaway CA for signing tests, made at test time: its signers' certificates come as
 * PKCS#12 files packed by the openssl CLI (what people upload), and an NSS database that
 * trusts the CA lets `pdfsig` call a signature valid. Needs `openssl` and `certutil` (libnss3-tools).
 */
export function makeSigningCa(caCommonName = 'docgen test signing CA'): TestSigningCa {
  const dir = mkdtempSync(path.join(tmpdir(), 'docgen-signing-'));
  const file = (name: string) => path.join(dir, name);
  const caKeys = forge.pki.rsa.generateKeyPair(2048);
  const now = Date.now();
  const ca = certificate(caCommonName, caCommonName, caKeys.publicKey, caKeys.privateKey, {
    ca: true,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 30 * DAY_MS),
  });
  const caPem = forge.pki.certificateToPem(ca);
  writeFileSync(file('ca.pem'), caPem);
  const nssDir = file('nss');
  execFileSync('mkdir', ['-p', nssDir]);
  execFileSync('certutil', ['-N', '-d', `sql:${nssDir}`, '--empty-password'], { stdio: 'pipe' });
  execFileSync('certutil', ['-A', '-d', `sql:${nssDir}`, '-n', 'docgen-test-ca', '-t', 'CT,C,C', '-i', file('ca.pem')], { stdio: 'pipe' });

  let issued = 0;
  const issue = (options: SigningCertificateOptions = {}): TestSigningCertificate => {
    const name = `signer-${++issued}`;
    const commonName = options.commonName ?? 'ACME Invoicing GmbH';
    const keys = signerKeys(options);
    const cert = certificate(commonName, caCommonName, keys.publicKey, caKeys.privateKey, {
      ca: false,
      notBefore: options.notBefore ?? new Date(now - DAY_MS),
      notAfter: options.notAfter ?? new Date(now + 10 * DAY_MS),
    });
    const certificatePem = forge.pki.certificateToPem(cert);
    const privateKeyPem = forge.pki.privateKeyToPem(keys.privateKey);
    writeFileSync(file(`${name}.pem`), certificatePem);
    writeFileSync(file(`${name}.key`), privateKeyPem);
    const password = `pw-${name}-${forge.util.bytesToHex(forge.random.getBytesSync(4))}`;
    execFileSync(
      'openssl',
      [
        'pkcs12',
        '-export',
        ...(options.withoutKey ? ['-nokeys'] : ['-inkey', file(`${name}.key`)]),
        '-in',
        file(`${name}.pem`),
        '-certfile',
        file('ca.pem'),
        '-name',
        commonName,
        '-passout',
        `pass:${password}`,
        '-out',
        file(`${name}.p12`),
      ],
      { stdio: 'pipe' },
    );
    return { p12: readFileSync(file(`${name}.p12`)), password, commonName, caCommonName, privateKeyPem, certificatePem };
  };

  const pdfsig = (pdf: Uint8Array): string => {
    const pdfPath = file(`checked-${Date.now()}-${Math.random().toString(36).slice(2)}.pdf`);
    writeFileSync(pdfPath, pdf);
    try {
      return execFileSync('pdfsig', ['-nssdir', `sql:${nssDir}`, pdfPath], { stdio: 'pipe' }).toString();
    } catch (error) {
      const failed = error as { stdout?: Buffer; stderr?: Buffer };
      return `${failed.stdout?.toString() ?? ''}${failed.stderr?.toString() ?? ''}`;
    } finally {
      rmSync(pdfPath, { force: true });
    }
  };

  return { caPem, issue, nssDir, pdfsig, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The same PKCS#12 with its MAC's iteration count set to `iterations` (the MAC no longer
 * matches, but a reader derives the MAC key before it can tell): a kilobyte that asks a
 * reader for that many rounds of key derivation.
 */
export function withMacIterations(p12: Buffer, iterations: number): Buffer {
  const pfx = forge.asn1.fromDer(forge.util.createBuffer(p12.toString('binary')));
  const macData = (pfx.value as forge.asn1.Asn1[])[2]!;
  const fields = macData.value as forge.asn1.Asn1[];
  const count = forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.INTEGER, false, forge.asn1.integerToDer(iterations).getBytes());
  if (fields.length > 2) fields[2] = count;
  else fields.push(count);
  return Buffer.from(forge.asn1.toDer(pfx).getBytes(), 'binary');
}
