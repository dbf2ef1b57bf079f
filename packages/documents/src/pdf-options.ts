import { scrypt } from 'node:crypto';
import { promisify } from 'node:util';
import type { z } from 'zod';
import { REDACTED, type PdfOptions } from '@docgen/contracts';
import type { RenderSecrets } from '@docgen/queue';
import { Turns } from '@docgen/runtime';

type Options = z.output<typeof PdfOptions>;
const PASSWORD_FIELDS = ['password', 'owner_password'] as const;

const scryptAsync = promisify(scrypt) as (password: string, salt: string, length: number) => Promise<Buffer>;

/**
 * scrypt runs on libuv's thread pool (4 threads, which file reads, zlib and the key-derivation
 * of everything else share), each run ~50 ms and 16 MiB: at most two at a time per process, the
 * rest waiting their turn here, so requests with PDF passwords never hold the whole pool.
 */
const hashTurns = new Turns(2);

async function slowHash(password: string, salt: string): Promise<string> {
  const release = await hashTurns.acquire();
  try {
    return (await scryptAsync(password, salt, 32)).toString('hex');
  } finally {
    release();
  }
}

/** What is stored and shown (passwords as "***"), and the passwords, kept apart for the render only. */
export function separatePdfSecrets(options: Options | undefined): { stored: Options | null; secrets: RenderSecrets | undefined } {
  if (!options) return { stored: null, secrets: undefined };
  const stored = { ...options };
  const secrets: RenderSecrets = {};
  for (const field of PASSWORD_FIELDS) {
    if (options[field] === undefined) continue;
    secrets[field] = options[field];
    stored[field] = REDACTED;
  }
  return { stored, secrets: Object.keys(secrets).length > 0 ? secrets : undefined };
}

/**
 * The options as the idempotency comparison sees them: each password replaced by a slow,
 * salted hash (scrypt, salted with the organisation and the key), so a changed password
 * is a different request while the stored request hash gives no quick way to guess it.
 */
export async function hashablePdfOptions(options: Options | undefined, salt: string): Promise<Options | undefined> {
  if (!options) return options;
  const hashable = { ...options };
  for (const field of PASSWORD_FIELDS) {
    const password = options[field];
    if (password !== undefined) hashable[field] = await slowHash(password, `docgen-idempotency:${salt}`);
  }
  return hashable;
}
