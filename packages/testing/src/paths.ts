import { randomBytes } from 'node:crypto';
import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '../../..');

/** Short random id for database names, Redis key prefixes and queue names. */
export const uniqueId = (): string => randomBytes(6).toString('hex');
