import { z } from 'zod';
import { BinaryFile, CursorParam, IsUatParam, LimitParam, Timestamp, page } from './common';
import { OutputFormat } from './documents';
import { apiSchemas } from './registry';

export const BulkJobStatus = z.enum(['queued', 'running', 'completed', 'failed']);

export const BulkJob = z
  .object({
    id: z.uuid(),
    template_id: z.uuid(),
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

export const BulkJobUpload = z.object({
  file: BinaryFile.describe('.xlsx (first sheet) or .csv; first row = token names, one document per later row.'),
  template_id: z.uuid({ error: 'must be a template id (UUID)' }),
  output_format: OutputFormat,
  is_uat: IsUatParam,
});

export type BulkJobBody = z.output<typeof BulkJob>;
