import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PdfEncryption } from './options';
import { QPDF_LENIENT, runQpdf } from './qpdf';

/**
 * AES-256 encryption (R6) with qpdf. The passwords go to qpdf in a job file inside a
 * private temporary directory (mode 0700, deleted afterwards), never on its command line,
 * where any local user could read them in the process list.
 */
export async function encryptPdf(pdf: Uint8Array, encryption: PdfEncryption, timeoutMs = 30_000): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'docgen-finish-'));
  try {
    const input = path.join(dir, 'in.pdf');
    const output = path.join(dir, 'out.pdf');
    const job = path.join(dir, 'job.json');
    await writeFile(input, pdf);
    const { print, copy, modify } = encryption.permissions;
    const jobJson = {
      inputFile: input,
      outputFile: output,
      encrypt: {
        userPassword: encryption.userPassword,
        ownerPassword: encryption.ownerPassword,
        '256bit': { print: print ? 'full' : 'none', extract: copy ? 'y' : 'n', modify: modify ? 'all' : 'none' },
      },
    };
    await writeFile(job, JSON.stringify(jobJson), { mode: 0o600 });
    await runQpdf(
      [...QPDF_LENIENT, `--job-json-file=${job}`],
      [input],
      (_, why) =>
        `The PDF could not be encrypted: qpdf cannot read the rendered PDF, damaged beyond repair (${why}); generate it again without password, owner_password and permissions`,
      timeoutMs,
    );
    return await readFile(output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
