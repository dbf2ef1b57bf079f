/** Where each kind of file lives in storage; one place so gateway and workers agree. */
export const templateFileKey = (organizationId: string, templateId: string) => `templates/${organizationId}/${templateId}.docx`;

/** An HTML template's sanitised HTML, printed by Chromium (its DOCX at templateFileKey serves DOCX output). */
export const templateHtmlKey = (organizationId: string, templateId: string) => `templates/${organizationId}/${templateId}.html`;

/** The first page of a template as uploaded, rendered once by the render worker. */
export const templatePreviewKey = (organizationId: string, templateId: string) => `templates/${organizationId}/${templateId}.preview.png`;

/**
 * A later version's files (API.md §12), named by the version's own id so they are written
 * before its number is taken; version 1 keeps the template's keys above. Never overwritten.
 */
export const templateVersionFileKey = (organizationId: string, templateId: string, versionId: string, extension: 'docx' | 'html') =>
  `templates/${organizationId}/${templateId}.${versionId}.${extension}`;

/** A version's first page; version 1's is the template's own preview key. */
export const templateVersionPreviewKey = (organizationId: string, templateId: string, version: number) =>
  version === 1 ? templatePreviewKey(organizationId, templateId) : `templates/${organizationId}/${templateId}.v${version}.preview.png`;

/** Every file of one template, whatever its version (its preview, its HTML): the keys above all start with it. */
export const templateFilesPrefix = (organizationId: string, templateId: string) => `templates/${organizationId}/${templateId}.`;

/** Per generation, so a retried document never reads a half-replaced file of the previous try. */
export const documentFileKey = (doc: { organizationId: string; id: string; generation: number }, extension: 'pdf' | 'docx') =>
  `documents/${doc.organizationId}/${doc.id}/g${doc.generation}.${extension}`;

/** The folder holding every generation's files of one document. */
export const documentFilesPrefix = (doc: { organizationId: string; id: string }) => `documents/${doc.organizationId}/${doc.id}/`;

/** The generation a document file key belongs to (undefined for any other key). */
export function documentFileGeneration(key: string): number | undefined {
  const match = /\/g(\d+)\.(pdf|docx)$/.exec(key);
  return match ? Number(match[1]) : undefined;
}

export const bulkZipKey = (organizationId: string, bulkJobId: string) => `bulk/${organizationId}/${bulkJobId}.zip`;

const SAFE_KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/** Keys are relative paths of plain names: nothing that could escape a folder or hide beside stored files. */
export function assertSafeKey(key: string): void {
  if (!SAFE_KEY.test(key) || key.split('/').includes('..')) throw new Error(`Invalid storage key: ${key}`);
}

/** The drift check's baseline of one template version: its page images and baseline.json (the input they were rendered from). */
export const renderingBaselinePrefix = (organizationId: string, templateId: string, version: number) =>
  `${templateBaselinesPrefix(organizationId, templateId)}v${version}/`;

/** Every version's drift baselines of one template. */
export const templateBaselinesPrefix = (organizationId: string, templateId: string) => `rendering-baselines/${organizationId}/${templateId}/`;
