import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import PizZip from 'pizzip';
import { repoRoot } from '@docgen/testing';

export { eventually } from '@docgen/testing';

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
