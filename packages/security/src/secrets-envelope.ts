import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Envelope encryption for secrets at rest (a signing certificate's private key): each secret
 * gets its own random data key (AES-256-GCM); the data key is wrapped (AES-256-GCM again) by
 * a master key from SECRETS_KEY, named by its key id. Rotating SECRETS_KEY re-wraps the data
 * keys only (`rewrapSecret`); the secrets' own ciphertexts never change. Both layers are
 * bound to what the secret belongs to (`context`, e.g. the certificate's id), so an envelope
 * copied to another row does not open.
 */

export interface MasterKey {
  /** Derived from the key itself (first 8 bytes of its SHA-256, hex): nothing to configure beside it. */
  id: string;
  key: Buffer;
}

export interface SecretsKeyring {
  /** SECRETS_KEY: wraps every new data key and every re-wrapped one. */
  current: MasterKey;
  /** The current key and SECRETS_KEY_PREVIOUS's, by id: any of them opens an envelope. */
  byId: ReadonlyMap<string, MasterKey>;
}

export interface SecretEnvelope {
  v: 1;
  alg: 'A256GCM';
  /** Id of the master key that wraps `wrapped_key`. */
  kid: string;
  /** base64: iv (12) | tag (16) | encrypted data key (32). */
  wrapped_key: string;
  /** base64: iv (12) | tag (16) | ciphertext. */
  ciphertext: string;
}

/** SECRETS_KEY (or one of SECRETS_KEY_PREVIOUS) is not 32 bytes of base64. */
export class SecretsKeyError extends Error {}

/** The envelope does not open with any key of the keyring, or was tampered with. */
export class SecretEnvelopeError extends Error {}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function masterKey(base64: string): MasterKey {
  const trimmed = base64.trim();
  const key = Buffer.from(trimmed, 'base64');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) || key.length !== 32) {
    throw new SecretsKeyError('must be 32 random bytes in base64 (e.g. the output of: openssl rand -base64 32)');
  }
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 16), key };
}

/** The keyring from SECRETS_KEY and SECRETS_KEY_PREVIOUS (comma-separated); undefined when SECRETS_KEY is unset. */
export function secretsKeyring(current: string | undefined, previous: string | undefined = ''): SecretsKeyring | undefined {
  if (!current) return undefined;
  const currentKey = masterKey(current);
  const keys = [
    currentKey,
    ...previous
      .split(',')
      .filter((value) => value.trim() !== '')
      .map(masterKey),
  ];
  return { current: currentKey, byId: new Map(keys.map((key) => [key.id, key])) };
}

function encrypt(key: Buffer, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

function decrypt(key: Buffer, sealed: string, aad: string): Buffer {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES)).setAAD(Buffer.from(aad));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SecretEnvelopeError('The secret does not open with its key (tampered with, or moved from another record)');
  }
}

const wrapContext = (context: string) => `docgen-data-key:${context}`;

export function sealSecret(plaintext: Buffer, keyring: SecretsKeyring, context: string): SecretEnvelope {
  const dataKey = randomBytes(32);
  try {
    return {
      v: 1,
      alg: 'A256GCM',
      kid: keyring.current.id,
      wrapped_key: encrypt(keyring.current.key, dataKey, wrapContext(context)),
      ciphertext: encrypt(dataKey, plaintext, context),
    };
  } finally {
    dataKey.fill(0);
  }
}

function unwrap(envelope: SecretEnvelope, keyring: SecretsKeyring, context: string): Buffer {
  const master = keyring.byId.get(envelope.kid);
  if (!master) {
    throw new SecretEnvelopeError(
      `The secret is wrapped by key ${envelope.kid}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS; set the key it was made with`,
    );
  }
  return decrypt(master.key, envelope.wrapped_key, wrapContext(context));
}

export function openSecret(envelope: SecretEnvelope, keyring: SecretsKeyring, context: string): Buffer {
  const dataKey = unwrap(envelope, keyring, context);
  try {
    return decrypt(dataKey, envelope.ciphertext, context);
  } finally {
    dataKey.fill(0);
  }
}

/** The same secret with its data key wrapped by the current SECRETS_KEY (unchanged when it already is). */
export function rewrapSecret(envelope: SecretEnvelope, keyring: SecretsKeyring, context: string): SecretEnvelope {
  if (envelope.kid === keyring.current.id) return envelope;
  const dataKey = unwrap(envelope, keyring, context);
  try {
    return { ...envelope, kid: keyring.current.id, wrapped_key: encrypt(keyring.current.key, dataKey, wrapContext(context)) };
  } finally {
    dataKey.fill(0);
  }
}
