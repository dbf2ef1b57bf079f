import { X509Certificate, createPrivateKey } from 'node:crypto';
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

export type Pkcs12Problem = 'unreadable' | 'wrong_password' | 'no_private_key' | 'unsupported_key' | 'no_certificate';

/** The file cannot be used; `problem` says why, the message says it to a person. */
export class Pkcs12Error extends Error {
  constructor(
    readonly problem: Pkcs12Problem,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Opens a .p12/.pfx with its password (node-forge: the MAC and the encrypted bags, including
 * OpenSSL 3's default AES-256/PBKDF2). Only RSA keys: node-forge reads no other, and the CMS
 * signer signs with RSA.
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
  if (!key) throw new Pkcs12Error('unsupported_key', 'The private key is not an RSA key; only RSA signing keys are supported');
  const privateKey = createPrivateKey(forge.pki.privateKeyToPem(key as forge.pki.rsa.PrivateKey));
  const certificates = (p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag!] ?? [])
    .filter((bag) => bag.cert)
    .map((bag) => new X509Certificate(forge.pki.certificateToPem(bag.cert!)));
  const own = certificates.find((certificate) => certificate.checkPrivateKey(privateKey));
  if (!own) throw new Pkcs12Error('no_certificate', 'The PKCS#12 file holds no certificate for its private key');
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certificatePems: [own, ...certificates.filter((certificate) => certificate !== own)].map((certificate) => certificate.toString()),
    certificate: own,
  };
}
