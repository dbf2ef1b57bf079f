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
 * scrypt runs on libuv's thread pool (UV_THREADPOOL_SIZE threads, 4 by default, which file
 * reads, zlib and the key-derivation of everything else share), each run ~50 ms and 16 MiB: at
 * most half the pool at a time per process (one on a pool of one), the rest waiting their turn
 * here, so requests with PDF passwords never hold the whole pool.
 */
export const HASHES_AT_ONCE = Math.max(1, Math.floor(libuvThreads() / 2));
const hashTurns = new Turns(HASHES_AT_ONCE);

/** The pool's size as libuv reads it from UV_THREADPOOL_SIZE: 4 when unset, 1 for 0 or not a number, at most 1024. */
function libuvThreads(): number {
  const set = process.env.UV_THREADPOOL_SIZE;
  if (set === undefined) return 4;
  const threads = Number.parseInt(set, 10) || 0;
  return threads === 0 ? 1 : threads < 0 ? 1024 : Math.min(threads, 1024);
}

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
