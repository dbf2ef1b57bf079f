import { createHash } from 'node:crypto';
import { isDatabaseUnavailable, type Database } from '@docgen/db';
import type { FileStorage } from '@docgen/storage';
import { templateFormatOf, type PackageLimits, type PreparedHtmlTemplate } from '@docgen/templating';
import type { UntrustedWork } from '@docgen/untrusted-work';

/** HTML → DOCX on a render worker (the gateway's HtmlImporter), for an upload that waits. */
export interface DocxImporter {
  toDocx(organizationId: string, html: Buffer, onWarnings?: (warnings: string[]) => void): Promise<Buffer>;
}

export interface TemplateDeps {
  db: Database;
  storage: FileStorage;
  limits: PackageLimits;
  importer: DocxImporter;
  untrusted: UntrustedWork;
}

export interface Upload {
  file: Buffer;
  filename: string;
}

export interface PreparedUpload {
  format: 'docx' | 'html';
  /** The DOCX to store (tags corrected). */
  docx: Buffer;
  sha256: string;
  /** HTML templates: the sanitised HTML that Chromium prints. */
  html?: string;
  variables: object[];
  correctedTokens: object[];
  warnings: string[];
}

/**
 * Checks an uploaded template file (a new template's, or a new version's). HTML is read as
 * HTML (its variables, what Chromium prints) and converted to DOCX by a render worker; then
 * both formats get the same checks in a worker thread: what an upload costs to check is the
 * uploader's to choose. Throws TemplateError (templating) for a file that cannot be a template.
 */
export async function prepareUpload(deps: TemplateDeps, organizationId: string, upload: Upload): Promise<PreparedUpload> {
  let html: PreparedHtmlTemplate | undefined;
  const warnings: string[] = [];
  const format = templateFormatOf(upload.filename);
  if (format === 'html') html = await deps.untrusted.prepareHtmlTemplate(organizationId, upload.file);
  const docx = html ? await deps.importer.toDocx(organizationId, Buffer.from(html.docxSource, 'utf8'), (found) => warnings.push(...found)) : upload.file;
  let prepared = await deps.untrusted.prepareTemplate(organizationId, docx, deps.limits);
  if (html) prepared = { ...prepared, variables: html.variables, correctedTokens: html.correctedTokens };
  // The fingerprint is of the file the version serves (GET .../file), as stored.
  return {
    format,
    docx: prepared.file,
    sha256: sha256(prepared.file),
    ...(html ? { html: html.html } : {}),
    variables: prepared.variables as object[],
    correctedTokens: prepared.correctedTokens as object[],
    warnings,
  };
}

export const sha256 = (file: Buffer) => createHash('sha256').update(file).digest('hex');

/**
 * Writes a prepared upload's files, then `write` (the row); when the row was refused the files
 * are removed again, so nothing is half-stored. A lost connection can hide a COMMIT that
 * happened (or is still finishing, where no other connection can see it yet): then the files
 * stay — a stray file costs less than a row whose file is gone.
 */
export async function storeThen<T>(storage: FileStorage, files: { key: string; body: Buffer }[], write: () => Promise<T>): Promise<T> {
  for (const { key, body } of files) await storage.put(key, body);
  try {
    return await write();
  } catch (error) {
    if (!isDatabaseUnavailable(error)) await Promise.all(files.map(({ key }) => storage.delete(key).catch(() => undefined)));
    throw error;
  }
}
