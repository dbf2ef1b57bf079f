import { execFileSync } from 'node:child_process';
import { buildDocx, paragraph } from '@docgen/testing';
import { ConversionTimeoutError } from './errors';
import { convertPerCall } from './per-call-driver';

describe('convertPerCall (libreoffice-convert, real LibreOffice)', () => {
  it('converts a DOCX to PDF with a cold soffice', async () => {
    const pdf = await convertPerCall(buildDocx({ body: paragraph('per call Привет') }), 'pdf', 60_000);
    expect(execFileSync('pdftotext', ['-', '-'], { input: pdf }).toString()).toContain('per call Привет');
  }, 90_000);

  it('gives up with ConversionTimeoutError when soffice takes too long', async () => {
    await expect(convertPerCall(buildDocx({ body: paragraph('slow') }), 'pdf', 50)).rejects.toBeInstanceOf(ConversionTimeoutError);
  }, 90_000);
});
