import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import PizZip from 'pizzip';
import { repoRoot } from '@docgen/testing';

export const fixture = (name: string) => readFileSync(path.join(repoRoot, '..', 'shared', 'fixtures', 'docxtemplater', name));
export const pdfFonts = (pdf: Buffer) => execFileSync('pdffonts', ['-'], { input: pdf }).toString();
export const docxText = (docx: Buffer) =>
  Object.keys(new PizZip(docx).files)
    .filter((name) => /^word\/(document|header\d*|footer\d*)\.xml$/.test(name))
    .map((name) =>
      new PizZip(docx)
        .file(name)!
        .asText()
        .replace(/<[^>]+>/g, ''),
    )
    .join('\n');

/** Re-checks a condition every 50 ms until it holds, or fails naming what never happened. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
