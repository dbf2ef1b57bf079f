import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Database, Template } from '@docgen/db';
import { templateFileKey, type FileStorage } from '@docgen/storage';
import { TemplateError, prepareUpload, templateFormatOf, type PackageLimits } from '@docgen/templating';
import { HttpError } from '../errors';
import type { Caller } from '../middleware/authenticate';

const STATUS_BY_KIND = { unsupported: 415, invalid: 422, too_large: 413, syntax: 422 } as const;

export interface NewTemplate {
  file: Buffer;
  filename: string;
  name?: string;
  isUat: boolean;
  /** BCP 47, already checked and canonical; default en-US. */
  locale?: string;
}

/**
 * Checks and stores an uploaded template. The file is written before the row, and removed
 * again if the row cannot be written, so nothing is half-stored; a rejected upload stores
 * nothing at all.
 */
export async function createTemplate(
  deps: { db: Database; storage: FileStorage; limits: PackageLimits; conversionTimeoutMs: number },
  caller: Caller,
  upload: NewTemplate,
): Promise<Template> {
  let prepared;
  try {
    prepared = await prepareUpload(upload.file, templateFormatOf(upload.filename), {
      limits: deps.limits,
      conversionTimeoutMs: deps.conversionTimeoutMs,
    });
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    throw new HttpError(STATUS_BY_KIND[error.kind], error.message, {
      ...(error.issues.length ? { errors: error.issues.map((issue) => ({ path: 'file', ...issue })) } : {}),
    });
  }

  const id = randomUUID();
  const fileKey = templateFileKey(caller.organization.id, id);
  await deps.storage.put(fileKey, prepared.file);
  try {
    return await deps.db.template.create({
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
      },
    });
  } catch (error) {
    await deps.storage.delete(fileKey).catch(() => undefined);
    throw error;
  }
}

/** "Invoice 2026.docx" → "Invoice 2026". */
function defaultName(filename: string): string {
  const base = path.basename(filename, path.extname(filename)).trim();
  return (base || 'Untitled template').slice(0, 200);
}
