import { randomInt } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';

// argon2id with OWASP's baseline (19 MiB, 2 passes): ~30 ms per hash on this machine,
// run on libuv's thread pool so the event loop keeps serving.
const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const MIN_PASSWORD_LENGTH = 12;

export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS);

/** False for a wrong password and for a hash that is not a valid argon2 string. */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

// No look-alikes (0/O, 1/l/I), so a password read off a screen can be typed back.
const PASSWORD_ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** 20 characters (~115 bits): what the CLI and POST /members hand out, shown once. */
export function generatePassword(length = 20): string {
  let password = '';
  for (let i = 0; i < length; i++) password += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  return password;
}
