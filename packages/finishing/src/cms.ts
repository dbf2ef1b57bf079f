import { createHash, createPrivateKey, sign as rsaSign, type KeyObject } from 'node:crypto';
import forge from 'node-forge';

const { asn1 } = forge;
const { Class, Type } = asn1;

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  sha256: '2.16.840.1.101.3.4.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
};

/** A key and its certificates, as the signing certificate's envelope gives them back. */
export interface SigningKey {
  /** PKCS#8 PEM of an RSA private key. */
  privateKeyPem: string;
  /** The signer's certificate first, then any chain the PKCS#12 held (PEM each). */
  certificatePems: string[];
}

const oid = (value: string) => asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(value).getBytes());
const seq = (items: forge.asn1.Asn1[]) => asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, items);
const octets = (bytes: Buffer) => asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, false, bytes.toString('binary'));
const integer = (value: number) => asn1.create(Class.UNIVERSAL, Type.INTEGER, false, asn1.integerToDer(value).getBytes());
const der = (node: forge.asn1.Asn1) => Buffer.from(asn1.toDer(node).getBytes(), 'binary');
const algorithm = (value: string) => seq([oid(value), asn1.create(Class.UNIVERSAL, Type.NULL, false, '')]);

/** DER's SET OF: members ordered by their encodings (X.690 11.6). */
function setOf(items: forge.asn1.Asn1[], tagClass = Class.UNIVERSAL, tag: number = Type.SET) {
  const sorted = [...items].sort((a, b) => Buffer.compare(der(a), der(b)));
  return asn1.create(tagClass, tag, true, sorted);
}

const attribute = (type: string, value: forge.asn1.Asn1) => seq([oid(type), setOf([value])]);

/** The parts of a certificate a CMS signer refers to, taken from its own DER so they match byte for byte. */
function certificateParts(pem: string) {
  const certificate = asn1.fromDer(forge.pem.decode(pem)[0]!.body);
  const tbs = (certificate.value as forge.asn1.Asn1[])[0]!.value as forge.asn1.Asn1[];
  const offset = tbs[0]!.tagClass === Class.CONTEXT_SPECIFIC ? 1 : 0; // [0] version, present from v2 on
  return { certificate, der: der(certificate), serial: tbs[offset]!, issuer: tbs[offset + 2]! };
}

/**
 * A CMS SignedData for a PAdES baseline B-B signature (ETSI EN 319 142-1): detached, SHA-256,
 * RSA PKCS#1 v1.5, signed attributes content-type, message-digest and ESS
 * signing-certificate-v2 (the signer's certificate hash and issuer/serial), and no
 * signing-time attribute (B-B takes the claimed time from the signature dictionary's /M).
 * @signpdf/signer-p12 cannot do this: it adds signing-time and has no signing-certificate-v2.
 */
export class PadesSigner {
  private readonly key: KeyObject;

  constructor(private readonly signingKey: SigningKey) {
    this.key = createPrivateKey(signingKey.privateKeyPem);
  }

  /**
   * The CMS's length in bytes, exactly: the same structure with a zero signature, since an RSA
   * PKCS#1 v1.5 signature is as long as the modulus and every other part's length is fixed.
   * (The issuer name is in it three times: an estimate from the certificates' size falls short
   * for a long one.)
   */
  get length(): number {
    const modulusBytes = Math.ceil((this.key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
    return this.signedData(Buffer.alloc(0), () => Buffer.alloc(modulusBytes)).length;
  }

  sign(content: Buffer): Buffer {
    return this.signedData(content, (signedAttributes) => rsaSign('sha256', signedAttributes, this.key));
  }

  private signedData(content: Buffer, signAttributes: (signedAttributes: Buffer) => Buffer): Buffer {
    const certificates = this.signingKey.certificatePems.map(certificateParts);
    const signer = certificates[0]!;
    const essCertId = seq([
      // hashAlgorithm omitted: SHA-256 is its DEFAULT, which DER leaves out.
      octets(createHash('sha256').update(signer.der).digest()),
      seq([seq([asn1.create(Class.CONTEXT_SPECIFIC, 4, true, [signer.issuer])]), signer.serial]),
    ]);
    const signedAttributes = [
      attribute(OID.contentType, oid(OID.data)),
      attribute(OID.messageDigest, octets(createHash('sha256').update(content).digest())),
      attribute(OID.signingCertificateV2, seq([seq([essCertId])])),
    ];
    // The signature covers the attributes encoded as a SET OF; in the SignerInfo they are [0] IMPLICIT.
    const signature = signAttributes(der(setOf(signedAttributes)));
    const signerInfo = seq([
      integer(1),
      seq([signer.issuer, signer.serial]),
      algorithm(OID.sha256),
      setOf(signedAttributes, Class.CONTEXT_SPECIFIC, 0),
      algorithm(OID.rsaEncryption),
      octets(signature),
    ]);
    const signedData = seq([
      integer(1),
      setOf([algorithm(OID.sha256)]),
      seq([oid(OID.data)]), // detached: no eContent
      setOf(
        certificates.map((c) => c.certificate),
        Class.CONTEXT_SPECIFIC,
        0,
      ),
      setOf([signerInfo]),
    ]);
    return der(seq([oid(OID.signedData), asn1.create(Class.CONTEXT_SPECIFIC, 0, true, [signedData])]));
  }
}
