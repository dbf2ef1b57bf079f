import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QPDF_LENIENT, runQpdf } from './qpdf';

/**
 * One PDF of the given PDFs' pages, in order (qpdf --empty --pages). The building block of
 * POST /api/v1/merges (API.md §13); the inputs are our own rendered, unencrypted PDFs.
 */
export async function mergePdfs(pdfs: Uint8Array[], timeoutMs = 60_000): Promise<Buffer> {
  if (pdfs.length < 2) throw new RangeError('merging needs at least two PDFs');
  const dir = await mkdtemp(path.join(tmpdir(), 'docgen-merge-'));
  try {
    const inputs = await Promise.all(
      pdfs.map(async (pdf, index) => {
        const file = path.join(dir, `${String(index).padStart(3, '0')}.pdf`);
        await writeFile(file, pdf);
        return file;
      }),
    );
    const output = path.join(dir, 'merged.pdf');
    await runQpdf(
      [...QPDF_LENIENT, '--empty', '--pages', ...inputs, '--', output],
      inputs,
      (input, why) => `The PDF of document ${input + 1} of the merge is damaged beyond repair (${why}); generate that document again, or merge without it`,
      timeoutMs,
    );
    return await readFile(output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
