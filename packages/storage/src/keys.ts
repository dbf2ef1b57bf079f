/** Where each kind of file lives in storage; one place so gateway and workers agree. */
export const templateFileKey = (organizationId: string, templateId: string) => `templates/${organizationId}/${templateId}.docx`;

/** The first page of a template as uploaded, rendered once by the render worker. */
export const templatePreviewKey = (organizationId: string, templateId: string) => `templates/${organizationId}/${templateId}.preview.png`;

/** Per generation, so a retried document never reads a half-replaced file of the previous try. */
export const documentFileKey = (doc: { organizationId: string; id: string; generation: number }, extension: 'pdf' | 'docx') =>
  `documents/${doc.organizationId}/${doc.id}/g${doc.generation}.${extension}`;

export const bulkZipKey = (organizationId: string, bulkJobId: string) => `bulk/${organizationId}/${bulkJobId}.zip`;
