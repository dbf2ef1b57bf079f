import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Caller } from '@docgen/access';
import type { Template } from '@docgen/db';
import { templateFileKey, templateHtmlKey } from '@docgen/storage';
import { prepareUpload, storeThen, type TemplateDeps, type Upload } from './prepare-upload';
import { actorOf } from './who';

export interface NewTemplate extends Upload {
  name?: string;
  isUat: boolean;
  /** BCP 47, already checked and canonical; default en-US. */
  locale?: string;
}

/**
 * Checks and stores an uploaded template as version 1, published (API.md §12): the template
 * row (a copy of its published version's file and settings) and its version row in one
 * transaction, after the files; a rejected upload stores nothing at all.
 */
export async function createTemplate(deps: TemplateDeps, caller: Caller, upload: NewTemplate): Promise<Template & { warnings?: string[] }> {
  const organizationId = caller.organization.id;
  const prepared = await prepareUpload(deps, organizationId, upload);
  const id = randomUUID();
  const fileKey = templateFileKey(organizationId, id);
  const htmlFileKey = prepared.html === undefined ? undefined : templateHtmlKey(organizationId, id);
  const files = [{ key: fileKey, body: prepared.docx }, ...(htmlFileKey ? [{ key: htmlFileKey, body: Buffer.from(prepared.html!, 'utf8') }] : [])];
  const who = actorOf(caller);
  const settings = {
    variables: prepared.variables,
    correctedTokens: prepared.correctedTokens,
    fileKey,
    fileSize: prepared.docx.length,
    ...(htmlFileKey ? { htmlFileKey } : {}),
  };
  const template = await storeThen(deps.storage, files, () =>
    deps.db.template.create({
      data: {
        id,
        organizationId,
        name: upload.name ?? defaultName(upload.filename),
        format: prepared.format,
        isUat: upload.isUat,
        ...(upload.locale ? { locale: upload.locale } : {}),
        ...settings,
        version: 1,
        versions: {
          create: { version: 1, status: 'published', ...settings, fileSha256: prepared.sha256, createdBy: who, publishedAt: new Date(), publishedBy: who },
        },
      },
    }),
  );
  return prepared.warnings.length > 0 ? { ...template, warnings: prepared.warnings } : template;
}

/** "Invoice 2026.docx" → "Invoice 2026". */
function defaultName(filename: string): string {
  // Control characters (NUL above all: PostgreSQL refuses it in text) do not belong in a name.
  const printable = filename.replace(/\p{Cc}/gu, '');
  const base = path.basename(printable, path.extname(printable)).trim();
  return (base || 'Untitled template').slice(0, 200);
}
