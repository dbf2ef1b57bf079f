import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Database, Template } from '@docgen/db';
import { templateFileKey, templateHtmlKey, type FileStorage } from '@docgen/storage';
import { templateFormatOf, type PackageLimits, type PreparedHtmlTemplate } from '@docgen/templating';
import type { UntrustedWork } from '@docgen/untrusted-work';
import type { Caller } from '@docgen/access';
import type { HtmlImporter } from './html-importer';

export interface NewTemplate {
  file: Buffer;
  filename: string;
  name?: string;
  isUat: boolean;
  /** BCP 47, already checked and canonical; default en-US. */
  locale?: string;
}

/**
 * Checks and stores an uploaded template. An HTML upload is converted to DOCX by a render
 * worker first (this process has no LibreOffice); then both formats get the same checks, in
 * a worker thread: what an upload costs to check is the uploader's to choose.
 * The file is written before the row, and removed again if the row cannot be written, so
 * nothing is half-stored; a rejected upload stores nothing at all.
 */
export async function createTemplate(
  deps: { db: Database; storage: FileStorage; limits: PackageLimits; importer: HtmlImporter; untrusted: UntrustedWork },
  caller: Caller,
  upload: NewTemplate,
): Promise<Template & { warnings?: string[] }> {
  // A TemplateError says why the file cannot be a template; the error table gives its status.
  let html: PreparedHtmlTemplate | undefined;
  const warnings: string[] = [];
  const format = templateFormatOf(upload.filename);
  // HTML is read as HTML (its variables, what Chromium prints); what is not HTML text, or has
  // a syntax error, is refused here without a render worker. Its DOCX (for DOCX output) is a conversion.
  if (format === 'html') html = await deps.untrusted.prepareHtmlTemplate(caller.organization.id, upload.file);
  const docx = html
    ? await deps.importer.toDocx(caller.organization.id, Buffer.from(html.docxSource, 'utf8'), (found) => warnings.push(...found))
    : upload.file;
  // Off the event loop, bounded in memory and time (@docgen/untrusted-work).
  let prepared = await deps.untrusted.prepareTemplate(caller.organization.id, docx, deps.limits);
  if (html) prepared = { ...prepared, variables: html.variables, correctedTokens: html.correctedTokens };

  const id = randomUUID();
  const fileKey = templateFileKey(caller.organization.id, id);
  const htmlFileKey = html ? templateHtmlKey(caller.organization.id, id) : undefined;
  await deps.storage.put(fileKey, prepared.file);
  if (html && htmlFileKey) await deps.storage.put(htmlFileKey, Buffer.from(html.html, 'utf8'));
  try {
    const template = await deps.db.template.create({
      data: {
        id,
        organizationId: caller.organization.id,
        name: upload.name ?? defaultName(upload.filename),
        format: templateFormatOf(upload.filename),
        isUat: upload.isUat,
        ...(upload.locale ? { locale: upload.locale } : {}),
        variables: prepared.variables as object[],
        correctedTokens: prepared.correctedTokens as object[],
        fileKey,
        fileSize: prepared.file.length,
        ...(htmlFileKey ? { htmlFileKey } : {}),
      },
    });
    return warnings.length > 0 ? { ...template, warnings } : template;
  } catch (error) {
    await deps.storage.delete(fileKey).catch(() => undefined);
    if (htmlFileKey) await deps.storage.delete(htmlFileKey).catch(() => undefined);
    throw error;
  }
}

/** "Invoice 2026.docx" → "Invoice 2026". */
function defaultName(filename: string): string {
  const base = path.basename(filename, path.extname(filename)).trim();
  return (base || 'Untitled template').slice(0, 200);
}
