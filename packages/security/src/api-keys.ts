import { createHash, randomInt } from 'node:crypto';

export const API_KEY_PREFIX = 'svc_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 40; // ~238 bits
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

export interface NewApiKey {
  /** The full key: shown to the operator once, never stored. */
  key: string;
  /** SHA-256 hex of the key: what the database keeps. */
  hash: string;
  /** The first characters, safe to show in listings so a key can be recognised. */
  prefix: string;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKey(): NewApiKey {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[randomInt(ALPHABET.length)];
  const key = API_KEY_PREFIX + random;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}

/** A cheap shape check before any database work: prefix, alphabet and a sane length. */
export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX) && /^[0-9A-Za-z]{16,128}$/.test(value.slice(API_KEY_PREFIX.length));
}
