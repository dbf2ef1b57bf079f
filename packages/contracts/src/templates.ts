import { z } from 'zod';
import { BinaryFile, IsUatParam, Timestamp, page } from './common';
import { apiSchemas } from './registry';

/** Date formats: YYYY YY MMMM MMM MM M DD D dddd ddd, any punctuation, [literal text]. */
export const DATE_FORMAT_PATTERN = /^(\[[^\]]*\]|YYYY|YY|MMMM|MMM|MM|M|DD|D|dddd|ddd|[^A-Za-z[\]])+$/;
export const DEFAULT_DATE_FORMAT = 'YYYY-MM-DD';

export const VariableType = z.enum(['text', 'date', 'list', 'image']);

export const TemplateVariable = z
  .object({
    name: z.string(),
    type: VariableType,
    required: z.boolean(),
    format: z.string().optional().describe('Date variables: how the date is written, e.g. DD/MM/YYYY.'),
    fields: z.array(z.string()).optional().describe('List variables: the tags used inside the loop ("inner.field" for nested loops).'),
  })
  .register(apiSchemas, { id: 'TemplateVariable' });

export const Template = z
  .object({
    id: z.uuid(),
    name: z.string(),
    format: z.enum(['docx', 'html']),
    is_uat: z.boolean(),
    variables: z.array(TemplateVariable),
    corrected_tokens: z.array(z.object({ from: z.string(), to: z.string() })),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .register(apiSchemas, { id: 'Template' });

export const TemplatePage = page(Template).register(apiSchemas, { id: 'TemplatePage' });

export const TemplateUpload = z.object({
  file: BinaryFile.describe('The template: .docx, or .html (converted to DOCX at upload).'),
  name: z.string().trim().min(1).max(200).optional().describe('Defaults to the file name without its extension.'),
  is_uat: IsUatParam,
});

export const VariablesPatch = z
  .object({
    variables: z
      .array(
        z.object({
          name: z.string().min(1),
          type: VariableType.optional(),
          format: z.string().min(1).max(100).regex(DATE_FORMAT_PATTERN, { error: 'is not a date format (use YYYY, MM, DD, MMMM, D... e.g. DD/MM/YYYY)' }).optional(),
          required: z.boolean().optional(),
        }),
      )
      .min(1),
  })
  .register(apiSchemas, { id: 'VariablesPatch' });

export type TemplateBody = z.output<typeof Template>;
export type TemplateVariableBody = z.output<typeof TemplateVariable>;
