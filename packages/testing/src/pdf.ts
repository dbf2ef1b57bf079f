import { execFileSync } from 'node:child_process';

/** A PDF's text as poppler's `pdftotext -layout` reads it (columns kept on one line). */
export const pdfText = (pdf: Uint8Array): string => execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf }).toString();

/** Each page's text (pdftotext), trimmed, without empty pages. */
export const pdfPageTexts = (pdf: Uint8Array): string[] =>
  execFileSync('pdftotext', ['-', '-'], { input: pdf })
    .toString()
    .split('\f')
    .map((page) => page.trim())
    .filter((page) => page !== '');
