import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { convertWithSoffice } from './convert-once';

const TARGETS = { pdf: 'pdf', docx: 'docx:MS Word 2007 XML' } as const;

/**
 * The per-call driver: a fresh `soffice --convert-to` with a fresh profile for every
 * document (about a second each), as libreoffice-convert does. Kept as the fallback
 * (CONVERTER_DRIVER=per-call) and as the baseline the warm pool is benchmarked against.
 *
 * It runs soffice through convert-once's runner rather than libreoffice-convert's
 * execFile: execFile cannot give soffice a process group of its own, so its timeout killed
 * only the direct child (oosplash, on Debian) and left soffice.bin running. Here a timeout
 * kills the whole group. Calls run in parallel: each has its own profile.
 */
export async function convertPerCall(docx: Buffer, to: 'pdf' | 'docx', timeoutMs: number): Promise<Buffer> {
  const profile = await mkdtemp(path.join(tmpdir(), 'docgen-per-call-'));
  try {
    return await convertWithSoffice(docx, { from: 'docx', to: TARGETS[to], timeoutMs }, profile);
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}
