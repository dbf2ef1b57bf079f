import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from '@docgen/testing';

const FIXTURES = path.join(repoRoot, '..', 'shared', 'fixtures', 'docxtemplater');

export const fixture = (name: string): Buffer => readFileSync(path.join(FIXTURES, name));

/** Every file under a folder, recursively: proves a rejected upload stored nothing. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}
