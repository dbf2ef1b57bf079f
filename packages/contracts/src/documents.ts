import { z } from 'zod';
import { CursorParam, IsUatParam, LimitParam, Timestamp, page } from './common';
import { apiSchemas } from './registry';

export const DocumentStatus = z.enum(['queued', 'rendering', 'ready', 'failed']);
export const OutputFormat = z.enum(['pdf', 'docx', 'both']);
export const FileFormat = z.enum(['pdf', 'docx']);
export const PdfStandard = z.enum(['PDF/A-2b', 'PDF/A-3b'], { error: 'must be "PDF/A-2b" or "PDF/A-3b"' });

export const Document = z
  .object({
    id: z.uuid(),
    template_id: z.uuid(),
    status: DocumentStatus,
    output_format: OutputFormat,
    input_format: z.enum(['docx', 'html']).describe("The template's format when the document was requested."),
    is_uat: z.boolean(),
    input_json: z.record(z.string(), z.unknown()),
    created_at: Timestamp,
    updated_at: Timestamp,
    completed_at: Timestamp.nullable(),
    error_message: z.string().optional().describe('Only when failed: what to fix, naming the token or tag.'),
    files: z.array(FileFormat).describe('The formats ready to download.'),
    pdf_standard: PdfStandard.optional().describe('Only when the document asked for an archival PDF.'),
    purged_at: Timestamp.nullable().describe('When retention (RETENTION_DAYS) removed its files and input_json; null otherwise. Its download is then 410.'),
  })
  .register(apiSchemas, { id: 'Document' });

export const DocumentPage = page(Document).register(apiSchemas, { id: 'DocumentPage' });

export const CreateDocumentBody = z
  .object({
    template_id: z.uuid({ error: 'must be a template id (UUID)' }),
    input_json: z.record(z.string(), z.unknown(), { error: 'must be a JSON object of token values' }),
    output_format: OutputFormat,
    is_uat: z.boolean({ error: 'must be true or false' }).optional(),
    pdf_standard: PdfStandard.optional().describe(
      'An archival PDF (PDF/A-2b or PDF/A-3b: fonts embedded, conformance declared in XMP). Needs output_format pdf or both.',
    ),
  })
  .check((ctx) => {
    if (ctx.value.pdf_standard && ctx.value.output_format === 'docx') {
      ctx.issues.push({ code: 'custom', input: ctx.value, path: ['pdf_standard'], message: 'applies to PDF output; use output_format "pdf" or "both"' });
    }
  })
  .register(apiSchemas, { id: 'CreateDocument' });

export const IdempotencyKeyHeader = z.string().min(1).max(255);

export const DocumentListQuery = z.object({
  template_id: z.uuid({ error: 'must be a template id (UUID)' }).optional(),
  status: DocumentStatus.optional(),
  is_uat: IsUatParam,
  limit: LimitParam,
  cursor: CursorParam,
});

export const TemplateHistoryQuery = z.object({ status: DocumentStatus.optional(), is_uat: IsUatParam, limit: LimitParam, cursor: CursorParam });

export const DownloadQuery = z.object({ format: FileFormat.optional(), is_uat: IsUatParam });

export type DocumentBody = z.output<typeof Document>;
