import { X509Certificate, createPrivateKey, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import forge from 'node-forge';

/** What a PKCS#12 file holds, once its password opened it. */
export interface Pkcs12Contents {
  /** PKCS#8 PEM of the RSA private key. */
  privateKeyPem: string;
  /** The key's certificate first, then the rest of the file's certificates (PEM each). */
  certificatePems: string[];
  /** The key's certificate, parsed. */
  certificate: X509Certificate;
}

export type Pkcs12Problem = 'unreadable' | 'wrong_password' | 'no_private_key' | 'unsupported_key' | 'broken_key' | 'no_certificate';

/** The file cannot be used; `problem` says why, the message says it to a person. */
export class Pkcs12Error extends Error {
  constructor(
    readonly problem: Pkcs12Problem,
    message: string,
  ) {
    super(message);
  }
}

/** The keys the CMS signer takes. Past 8192 bits one RSA signature holds the render worker's thread for seconds. */
const SUPPORTED_SIGNING_KEYS = 'RSA keys of 2048 to 8192 bits with public exponent 65537';

/** The key as a person would name it ("a 16384-bit RSA key with public exponent 65537") when it is not one of SUPPORTED_SIGNING_KEYS. */
function unsupportedSigningKey(key: KeyObject): string | undefined {
  if (key.asymmetricKeyType !== 'rsa') return `a ${key.asymmetricKeyType ?? 'symmetric'} key`;
  const { modulusLength = 0, publicExponent } = key.asymmetricKeyDetails ?? {};
  if (modulusLength >= 2048 && modulusLength <= 8192 && publicExponent === 65537n) return undefined;
  return `a ${modulusLength}-bit RSA key with public exponent ${publicExponent}`;
}

/**
 * The key to sign with, checked and rebuilt: one of SUPPORTED_SIGNING_KEYS, its private
 * exponent and CRT numbers computed again from the modulus, the public exponent and the two
 * primes, never taken from the file. A file may carry a valid but huge private exponent with
 * wrong CRT numbers: OpenSSL then falls back to exponentiating with it (seconds a signature
 * on the render worker's thread) and the signature still verifies. Throws Pkcs12Error.
 */
export function checkedSigningKey(key: KeyObject): KeyObject {
  const unsupported = unsupportedSigningKey(key);
  if (unsupported) throw new Pkcs12Error('unsupported_key', `The private key is ${unsupported}; only ${SUPPORTED_SIGNING_KEYS} are supported`);
  const jwk = key.export({ format: 'jwk' });
  const [n, e, p, q] = [jwk.n, jwk.e, jwk.p, jwk.q].map((part) => (part ? BigInt(`0x${Buffer.from(part, 'base64url').toString('hex') || '0'}`) : 0n)) as [
    bigint,
    bigint,
    bigint,
    bigint,
  ];
  if (p <= 1n || q <= 1n || p * q !== n) {
    throw new Pkcs12Error('broken_key', 'The private key is not a consistent RSA key (its primes do not make its modulus); export it again');
  }
  // Primes of about half the modulus each, as every key generator makes them: a tiny one would
  // leave the other half of each signature's work nearly the modulus's size (four times the cost).
  const half = (key.asymmetricKeyDetails?.modulusLength ?? 0) / 2;
  if (p.toString(2).length < half - 16 || q.toString(2).length < half - 16) {
    throw new Pkcs12Error('broken_key', 'The private key is not a usual RSA key (its two primes are far from equal in size); make a new key');
  }
  const d = inverse(e, (p - 1n) * (q - 1n));
  if (d === undefined) throw new Pkcs12Error('broken_key', 'The private key is not a consistent RSA key (no private exponent fits it); export it again');
  const part = (value: bigint) => {
    const hex = value.toString(16);
    return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex').toString('base64url');
  };
  return createPrivateKey({
    format: 'jwk',
    key: { kty: 'RSA', n: jwk.n, e: jwk.e, d: part(d), p: jwk.p, q: jwk.q, dp: part(d % (p - 1n)), dq: part(d % (q - 1n)), qi: part(inverse(q, p) ?? 0n) },
  });
}

/** `value`'s inverse modulo `modulus` (extended Euclid), or undefined when they share a factor. */
function inverse(value: bigint, modulus: bigint): bigint | undefined {
  let [oldR, r] = [value % modulus, modulus];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const quotient = oldR / r;
    [oldR, r] = [r, oldR - quotient * r];
    [oldS, s] = [s, oldS - quotient * s];
  }
  if (oldR !== 1n) return undefined;
  return ((oldS % modulus) + modulus) % modulus;
}

/**
 * Opens a .p12/.pfx with its password (node-forge: the MAC and the encrypted bags, including
 * OpenSSL 3's default AES-256/PBKDF2). Only SUPPORTED_SIGNING_KEYS: node-forge reads no other
 * type, and the CMS signer signs with RSA. The key must make one test signature its
 * certificate verifies: matching public numbers alone would let made-up private ones through.
 */
export function readPkcs12(file: Buffer, password: string): Pkcs12Contents {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    const der = forge.asn1.fromDer(forge.util.createBuffer(file.toString('binary')));
    p12 = forge.pkcs12.pkcs12FromAsn1(der, false, password);
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (/password|MAC could not be verified|decrypt/i.test(message)) {
      throw new Pkcs12Error('wrong_password', 'The password does not open this PKCS#12 file');
    }
    throw new Pkcs12Error('unreadable', 'The file is not a PKCS#12 (.p12 or .pfx) file this service can read');
  }
  const bags = [
    ...(p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag!] ?? []),
    ...(p12.getBags({ bagType: forge.pki.oids.keyBag })[forge.pki.oids.keyBag!] ?? []),
  ];
  if (bags.length === 0) throw new Pkcs12Error('no_private_key', 'The PKCS#12 file holds no private key; export it with its key');
  const key = bags[0]!.key;
  if (!key) throw new Pkcs12Error('unsupported_key', `The private key is not an RSA key; only ${SUPPORTED_SIGNING_KEYS} are supported`);
  const privateKey = checkedSigningKey(createPrivateKey(forge.pki.privateKeyToPem(key as forge.pki.rsa.PrivateKey)));
  const certificates = (p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag!] ?? [])
    .filter((bag) => bag.cert)
    .map((bag) => new X509Certificate(forge.pki.certificateToPem(bag.cert!)));
  const own = certificates.find((certificate) => certificate.checkPrivateKey(privateKey));
  if (!own) throw new Pkcs12Error('no_certificate', 'The PKCS#12 file holds no certificate for its private key');
  if (!signsForCertificate(privateKey, own)) {
    throw new Pkcs12Error(
      'broken_key',
      "The private key does not make signatures its certificate's public key verifies; export the key and its certificate again",
    );
  }
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certificatePems: [own, ...certificates.filter((certificate) => certificate !== own)].map((certificate) => certificate.toString()),
    certificate: own,
  };
}

function signsForCertificate(privateKey: KeyObject, certificate: X509Certificate): boolean {
  const probe = randomBytes(32);
  try {
    return verify('sha256', probe, certificate.publicKey, sign('sha256', probe, privateKey));
  } catch {
    return false; // private numbers OpenSSL cannot even compute with
  }
}
