import { z } from 'zod';
import { CursorParam, IsUatParam, LimitParam, MAX_VERSION_NUMBER, Timestamp, page } from './common';
import { apiSchemas } from './registry';
import { unstorableJson } from './storable-json';

export const DocumentStatus = z.enum(['queued', 'rendering', 'ready', 'failed']);
export const OutputFormat = z.enum(['pdf', 'docx', 'both']);
export const FileFormat = z.enum(['pdf', 'docx']);
export const PdfStandard = z.enum(['PDF/A-2b', 'PDF/A-3b', 'PDF/UA-1'], { error: 'must be "PDF/A-2b", "PDF/A-3b" or "PDF/UA-1"' });

/** Printable Latin-1: what the watermark's standard PDF font can draw. */
const WATERMARK_TEXT = /^[\x20-\x7E\xA0-\xFF]+$/;
/** AES-256 (R6) takes passwords of up to 127 bytes of UTF-8. */
const PdfPassword = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .refine((value) => new TextEncoder().encode(value).length <= 127, { error: 'must be at most 127 bytes of UTF-8' });
const PlainText = (max: number) => z.string({ error: 'must be a string' }).max(max, { error: `must be at most ${max} characters` });

/** What the stored request and the read response show in place of a password. */
export const REDACTED = '***';

export const PdfOptions = z
  .object({
    watermark: z
      .object({
        text: z
          .string({ error: 'must be a string' })
          .min(1, { error: 'must not be empty' })
          .max(100, { error: 'must be at most 100 characters' })
          .regex(WATERMARK_TEXT, { error: 'must use Latin letters, digits and punctuation (the watermark font has no other characters)' }),
        opacity: z.number({ error: 'must be a number' }).min(0.05, { error: 'must be at least 0.05' }).max(1, { error: 'must be at most 1' }).default(0.15),
      })
      .strict()
      .optional()
      .describe('Drawn diagonally on every page, under the text. UAT documents get "UAT" (UAT_WATERMARK) unless this is set.'),
    password: PdfPassword.optional().describe('Needed to open the PDF (AES-256). Used for this render only; shown as "***".'),
    owner_password: PdfPassword.optional().describe('Needed to change the permissions; must differ from password. Used for this render only; shown as "***".'),
    permissions: z
      .object({ print: z.boolean().default(true), copy: z.boolean().default(true), modify: z.boolean().default(true) })
      .strict()
      .optional()
      .describe('What a reader without the owner password may do; the PDF is encrypted when set.'),
    metadata: z
      .object({
        title: PlainText(1000).optional(),
        author: PlainText(1000).optional(),
        subject: PlainText(1000).optional(),
        keywords: z.array(PlainText(200)).max(50, { error: 'must have at most 50 keywords' }).optional(),
      })
      .strict()
      .optional()
      .describe('The document information dictionary and XMP.'),
    sign: z
      .object({ reason: PlainText(500).optional(), location: PlainText(500).optional() })
      .strict()
      .optional()
      .describe(
        "Sign the PDF (PAdES B-B, SHA-256) with the organisation's signing certificate of the environment, after every other step; 422 when none is uploaded. Not with encryption.",
      ),
  })
  .strict()
  .register(apiSchemas, { id: 'PdfOptions' });

export const Document = z
  .object({
    id: z.uuid(),
    template_id: z.uuid().nullable().describe('null for a merge (POST /api/v1/merges): see merged_from.'),
    template_version: z
      .number()
      .int()
      .nullable()
      .describe('The template version it renders, fixed when it was created; null for a merge and for documents made before versions.'),
    merged_from: z.array(z.uuid()).optional().describe('Only for a merge: the documents whose pages it holds, in order.'),
    status: DocumentStatus,
    output_format: OutputFormat,
    input_format: z.enum(['docx', 'html', 'pdf']).describe("The template's format when the document was requested; pdf for a merge."),
    is_uat: z.boolean(),
    input_json: z.record(z.string(), z.unknown()),
    created_at: Timestamp,
    updated_at: Timestamp,
    completed_at: Timestamp.nullable(),
    error_message: z.string().optional().describe('Only when failed: what to fix, naming the token or tag.'),
    errors: z
      .array(z.object({ path: z.string().describe('e.g. "input_json.items[2].price"'), message: z.string() }))
      .optional()
      .describe('Only when the document failed because of its input: every problem, where error_message summarises them.'),
    files: z.array(FileFormat).describe('The formats ready to download.'),
    pdf_standard: PdfStandard.optional().describe('Only when the document asked for an archival PDF.'),
    pdf_options: z.record(z.string(), z.unknown()).optional().describe('Only when asked for: the finishing options, passwords as "***".'),
    purged_at: Timestamp.nullable().describe('When retention (RETENTION_DAYS) removed its files and input_json; null otherwise. Its download is then 410.'),
  })
  .register(apiSchemas, { id: 'Document' });

export const DocumentPage = page(Document).register(apiSchemas, { id: 'DocumentPage' });

/** `template_version` of a request: a version of the template (a draft too); without it, the published one renders. */
export const TemplateVersionNumber = z
  .number({ error: 'must be a version number of the template' })
  .int({ error: 'must be a version number of the template' })
  .positive({ error: 'must be a version number of the template' })
  .max(MAX_VERSION_NUMBER, { error: 'must be a version number of the template' })
  .describe('A version of the template to render (a draft too, to try it); without it, the published version.');

export const CreateDocumentBody = z
  .object({
    template_id: z.uuid({ error: 'must be a template id (UUID)' }),
    template_version: TemplateVersionNumber.optional(),
    input_json: z.record(z.string(), z.unknown(), { error: 'must be a JSON object of token values' }),
    output_format: OutputFormat,
    is_uat: z.boolean({ error: 'must be true or false' }).optional(),
    pdf_standard: PdfStandard.optional().describe(
      'An archival PDF (PDF/A-2b or PDF/A-3b: fonts embedded, conformance declared in XMP), or a tagged accessible one (PDF/UA-1). Needs output_format pdf or both.',
    ),
    pdf_options: PdfOptions.optional(),
  })
  .check((ctx) => {
    const unstorable = unstorableJson(ctx.value.input_json);
    if (unstorable) ctx.issues.push({ code: 'custom', input: ctx.value, path: ['input_json', ...unstorable.path], message: unstorable.message });
    const unstorableOption = ctx.value.pdf_options && unstorableJson(ctx.value.pdf_options);
    if (unstorableOption)
      ctx.issues.push({ code: 'custom', input: ctx.value, path: ['pdf_options', ...unstorableOption.path], message: unstorableOption.message });
    if (ctx.value.pdf_standard && ctx.value.output_format === 'docx') {
      ctx.issues.push({ code: 'custom', input: ctx.value, path: ['pdf_standard'], message: 'applies to PDF output; use output_format "pdf" or "both"' });
    }
    pdfOptionsIssues(ctx.value).forEach(({ path, message }) => ctx.issues.push({ code: 'custom', input: ctx.value, path, message }));
  })
  .register(apiSchemas, { id: 'CreateDocument' });

/** The combinations of pdf_options that cannot be honoured, for every request that takes them. */
export function pdfOptionsIssues(body: {
  output_format: string;
  pdf_standard?: string;
  pdf_options?: z.output<typeof PdfOptions>;
}): { path: string[]; message: string }[] {
  const options = body.pdf_options;
  if (!options) return [];
  if (body.output_format === 'docx') return [{ path: ['pdf_options'], message: 'applies to PDF output; use output_format "pdf" or "both"' }];
  const issues: { path: string[]; message: string }[] = [];
  if (body.pdf_standard?.startsWith('PDF/A') && (options.password || options.owner_password || options.permissions)) {
    issues.push({
      path: ['pdf_options'],
      message: `${body.pdf_standard} does not allow encryption; leave out password, owner_password and permissions, or pdf_standard`,
    });
  }
  if (body.output_format === 'both' && (options.password || options.owner_password || options.permissions)) {
    issues.push({ path: ['pdf_options'], message: 'only the PDF can be encrypted, and the DOCX would be handed out unprotected; use output_format "pdf"' });
  }
  if (options.owner_password !== undefined && options.owner_password === options.password) {
    issues.push({
      path: ['pdf_options', 'owner_password'],
      message: 'must differ from password: whoever opens the PDF with the password would get every permission; choose another, or leave it out',
    });
  }
  if (options.sign && (options.password || options.owner_password || options.permissions)) {
    issues.push({
      path: ['pdf_options', 'sign'],
      message:
        'cannot be combined with encryption (encrypting rewrites the file and would break the signature); leave out sign, or password, owner_password and permissions',
    });
  }
  return issues;
}

/** A merge accepts 2 to 100 documents (API.md §13). */
export const MAX_MERGE_SOURCES = 100;

export const CreateMergeBody = z
  .object({
    documents: z
      .array(z.uuid({ error: 'must be a document id (UUID)' }), { error: 'must be a list of document ids' })
      .min(2, { error: 'must list at least 2 documents' })
      .max(MAX_MERGE_SOURCES, { error: `must list at most ${MAX_MERGE_SOURCES} documents` })
      .describe('Ready documents with a PDF, of this organisation and environment; their pages are merged in this order.'),
    is_uat: z.boolean({ error: 'must be true or false' }).optional(),
    pdf_options: PdfOptions.optional(),
  })
  .check((ctx) => {
    const seen = new Map<string, number>();
    ctx.value.documents.forEach((id, index) => {
      const first = seen.get(id.toLowerCase());
      if (first === undefined) seen.set(id.toLowerCase(), index);
      else ctx.issues.push({ code: 'custom', input: ctx.value, path: ['documents', index], message: `repeats documents.${first}; list each document once` });
    });
    const unstorableOption = ctx.value.pdf_options && unstorableJson(ctx.value.pdf_options);
    if (unstorableOption)
      ctx.issues.push({ code: 'custom', input: ctx.value, path: ['pdf_options', ...unstorableOption.path], message: unstorableOption.message });
    pdfOptionsIssues({ output_format: 'pdf', pdf_options: ctx.value.pdf_options }).forEach(({ path, message }) =>
      ctx.issues.push({ code: 'custom', input: ctx.value, path, message }),
    );
  })
  .register(apiSchemas, { id: 'CreateMerge' });

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
