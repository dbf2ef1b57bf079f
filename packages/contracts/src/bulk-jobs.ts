import { z } from 'zod';
import { BinaryFile, CursorParam, IsUatParam, LimitParam, MAX_VERSION_NUMBER, Timestamp, page } from './common';
import { OutputFormat, PdfOptions } from './documents';
import { unstorableJson } from './storable-json';
import { apiSchemas } from './registry';

export const BulkJobStatus = z.enum(['queued', 'running', 'completed', 'failed']);

export const BulkJob = z
  .object({
    id: z.uuid(),
    template_id: z.uuid(),
    template_version: z.int().nullable().describe('The template version every row renders, fixed when the job was created.'),
    file_name: z.string().nullable().describe("How the ZIP names each row's file; null: row-0002.pdf."),
    status: BulkJobStatus.describe('completed once every row is rendered or failed and the ZIP is stored.'),
    output_format: OutputFormat,
    is_uat: z.boolean(),
    total_rows: z.int().describe('Data rows of the spreadsheet (empty rows not counted).'),
    succeeded: z.int(),
    failed: z.int(),
    created_at: Timestamp,
    completed_at: Timestamp.nullable(),
  })
  .register(apiSchemas, { id: 'BulkJob' });

export const BulkJobPage = page(BulkJob).register(apiSchemas, { id: 'BulkJobPage' });

export const BulkJobListQuery = z.object({
  template_id: z.uuid({ error: 'must be a template id (UUID)' }).optional(),
  status: BulkJobStatus.optional(),
  is_uat: IsUatParam,
  limit: LimitParam,
  cursor: CursorParam,
});

/** A form field holding JSON: parsed, then checked by the schema (its problems keep their paths under the field). */
const JsonField = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.issues.push({ code: 'custom', input: text, message: 'must be a JSON object' });
        return z.NEVER;
      }
    })
    .pipe(schema);

export const BulkJobUpload = z.object({
  file: BinaryFile.describe('.xlsx (first sheet) or .csv; first row = token names, one document per later row.'),
  template_id: z.uuid({ error: 'must be a template id (UUID)' }),
  template_version: z.coerce
    .number({ error: 'must be a version number of the template' })
    .int({ error: 'must be a version number of the template' })
    .positive({ error: 'must be a version number of the template' })
    .max(MAX_VERSION_NUMBER, { error: 'must be a version number of the template' })
    .optional()
    .describe('The version every row renders (a draft too); without it, the published version.'),
  output_format: OutputFormat,
  is_uat: IsUatParam,
  file_name: z
    .string()
    .trim()
    .min(1, { error: 'must name at least one token, like {invoice_number}' })
    .optional()
    .describe(
      'How the ZIP names each row\'s file, from the row\'s values: "{invoice_number}-{client_name}" gives "INV-42-ACME.pdf" (sanitised; a repeat gets -2; a row that leaves it empty keeps row-0002.pdf). Without it: row-0002.pdf.',
    ),
  pdf_options: JsonField(PdfOptions)
    .check((ctx) => {
      const unstorable = unstorableJson(ctx.value);
      if (unstorable) ctx.issues.push({ code: 'custom', input: ctx.value, path: unstorable.path, message: unstorable.message });
    })
    .optional()
    .describe(
      'PdfOptions as a JSON string (API.md §13): every row\'s document gets them, refused in the same combinations as on POST /documents; passwords are used for this bulk job only and shown as "***".',
    ),
});

export type BulkJobBody = z.output<typeof BulkJob>;
