import { Document as DocumentSchema, type DocumentBody } from '@docgen/contracts';
import type { Document } from '@docgen/db';

export function presentDocument(doc: Document): DocumentBody {
  return DocumentSchema.parse({
    id: doc.id,
    template_id: doc.templateId,
    status: doc.status,
    output_format: doc.outputFormat,
    input_format: doc.inputFormat,
    is_uat: doc.isUat,
    input_json: doc.inputJson,
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
    completed_at: doc.completedAt?.toISOString() ?? null,
    ...(doc.status === 'failed' && doc.errorMessage ? { error_message: doc.errorMessage } : {}),
    files: doc.files,
  });
}
