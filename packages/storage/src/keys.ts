/** Where each kind of file lives in storage; one place so gateway and workers agree. */
export const templateFileKey = (organizationId: string, templateId: string) => `templates/${organizationId}/${templateId}.docx`;

/** Per generation, so a retried document never reads a half-replaced file of the previous try. */
export const documentFileKey = (doc: { organizationId: string; id: string; generation: number }, extension: 'pdf' | 'docx') =>
  `documents/${doc.organizationId}/${doc.id}/g${doc.generation}.${extension}`;

export const bulkZipKey = (organizationId: string, bulkJobId: string) => `bulk/${organizationId}/${bulkJobId}.zip`;
