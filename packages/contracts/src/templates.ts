import { z } from 'zod';
import { BinaryFile, IsUatParam, Timestamp, page } from './common';
import { apiSchemas } from './registry';

/** Date formats: YYYY YY MMMM MMM MM M DD D dddd ddd, any punctuation, [literal text]. */
const DATE_FORMAT_TOKEN = /\[[^\]]*\]|YYYY|YY|MMMM|MMM|MM|M|DD|D|dddd|ddd|[^A-Za-z[\]]/y;

/**
 * Whether a date format is made only of the tokens the renderer knows. Read token by token
 * (each the longest that fits, as the renderer reads it) in linear time: a single regex of
 * the overlapping alternatives under `+` backtracks exponentially on "MMMM…Ma" and would
 * freeze the gateway's event loop on one request.
 */
export function isDateFormat(format: string): boolean {
  for (let at = 0; at < format.length; at = DATE_FORMAT_TOKEN.lastIndex) {
    DATE_FORMAT_TOKEN.lastIndex = at;
    if (!DATE_FORMAT_TOKEN.test(format)) return false;
  }
  return format.length > 0;
}
export const DEFAULT_DATE_FORMAT = 'YYYY-MM-DD';

export const VariableType = z.enum(['text', 'date', 'number', 'boolean', 'list', 'image', 'object']);

const fractionDigits = z.number().int().min(0).max(20);

/** How a number variable is written: Intl.NumberFormat options in the template's locale. */
export const NumberFormat = z
  .object({
    style: z.enum(['decimal', 'currency', 'percent']),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, { error: 'must be an ISO 4217 currency code in capitals, such as EUR' })
      .optional(),
    minimum_fraction_digits: fractionDigits.optional(),
    maximum_fraction_digits: fractionDigits.optional(),
  })
  .check((ctx) => {
    const format = ctx.value;
    if (format.style === 'currency' && !format.currency)
      ctx.issues.push({ code: 'custom', input: format, path: ['currency'], message: 'is required when style is currency' });
    if (format.style !== 'currency' && format.currency)
      ctx.issues.push({ code: 'custom', input: format, path: ['currency'], message: 'is only for style currency' });
    if ((format.minimum_fraction_digits ?? 0) > (format.maximum_fraction_digits ?? 20)) {
      ctx.issues.push({ code: 'custom', input: format, path: ['minimum_fraction_digits'], message: 'must not be more than maximum_fraction_digits' });
    }
  })
  .register(apiSchemas, { id: 'NumberFormat' });

const VariableFormat = z.union([z.string(), NumberFormat]);

export const TemplateVariable = z
  .object({
    name: z.string(),
    type: VariableType,
    required: z.boolean(),
    format: VariableFormat.optional().describe('Date variables: how the date is written, e.g. DD/MM/YYYY. Number variables: a NumberFormat.'),
    fields: z
      .array(z.string())
      .optional()
      .describe(
        'List variables: the tags used inside the loop ("inner.field" for nested loops). Object variables: the members expressions read ("address", "address.city").',
      ),
    field_types: z.record(z.string(), VariableType).optional().describe('List and object variables: the type of each field, keyed like fields.'),
    field_formats: z
      .record(z.string(), VariableFormat)
      .optional()
      .describe('List and object variables: the format of each date or number field, keyed like fields.'),
  })
  .register(apiSchemas, { id: 'TemplateVariable' });

/** Whether Node's ICU can format numbers and dates in this locale. */
export function isSupportedLocale(tag: string): boolean {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return !!canonical && Intl.NumberFormat.supportedLocalesOf([canonical]).length > 0 && Intl.DateTimeFormat.supportedLocalesOf([canonical]).length > 0;
  } catch {
    return false;
  }
}

export const Locale = z
  .string()
  .max(64)
  .refine(isSupportedLocale, { error: 'must be a BCP 47 language tag this server can format, such as en-US, de-DE or ja-JP' })
  .describe('BCP 47 language tag; numbers and dates render in it (stored in canonical form, de-de → de-DE).');

/** A checked locale as ICU spells it (de-de → de-DE). */
export const canonicalLocale = (tag: string): string => Intl.getCanonicalLocales(tag)[0]!;

export const PromotedFrom = z.object({ template_id: z.uuid(), version: z.number().int().min(1) }).register(apiSchemas, { id: 'PromotedFrom' });

export const Template = z
  .object({
    id: z.uuid(),
    name: z.string(),
    format: z.enum(['docx', 'html']),
    is_uat: z.boolean(),
    locale: z.string().describe('BCP 47; numbers and month and day names render in it.'),
    variables: z.array(TemplateVariable),
    corrected_tokens: z.array(z.object({ from: z.string(), to: z.string() })),
    version: z.number().int().min(1).describe('The published version: what renders when a document names no template_version.'),
    draft_version: z.number().int().min(1).nullable().describe('The newest draft version, or null.'),
    promoted_from: PromotedFrom.nullable().describe(
      'Production templates: the UAT template and version its published version was promoted from; null otherwise.',
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .register(apiSchemas, { id: 'Template' });

export const TemplatePage = page(Template).register(apiSchemas, { id: 'TemplatePage' });

/** The upload's answer: the template, and what the uploader should know about it. */
export const CreatedTemplate = Template.extend({
  warnings: z
    .array(z.string())
    .optional()
    .describe(
      'HTML uploads: problems that do not stop the template, e.g. text in a script no font installed on the render workers can print (it would print as empty boxes).',
    ),
}).register(apiSchemas, { id: 'CreatedTemplate' });

export const TemplateUpload = z.object({
  file: BinaryFile.describe('The template: .docx, or .html (converted to DOCX at upload).'),
  name: z.string().trim().min(1).max(200).optional().describe('Defaults to the file name without its extension.'),
  is_uat: IsUatParam,
  locale: Locale.optional().describe('BCP 47 language tag (default en-US); numbers and dates render in it.'),
});

export const TemplatePatch = z
  .object({
    name: z.string().trim().min(1).max(200).optional().describe('A new name for the template (its id and documents stay).'),
    locale: Locale.optional(),
  })
  .strict()
  .register(apiSchemas, { id: 'TemplatePatch' });

/** GET /templates/{id}/schema: a JSON Schema (draft 2020-12) document. */
export const InputJsonSchema = z
  .record(z.string(), z.unknown())
  .describe('A JSON Schema (draft 2020-12) of input_json for this template: the check a document input meets at render time.')
  .register(apiSchemas, { id: 'InputJsonSchema' });

export const VariablesPatch = z
  .object({
    variables: z
      .array(
        z.object({
          name: z.string().min(1).describe('A variable, or a list field as "items.price" ("orders.lines.qty" when nested).'),
          type: VariableType.optional(),
          format: z
            .union([
              z.string().min(1).max(100).refine(isDateFormat, { error: 'is not a date format (use YYYY, MM, DD, MMMM, D... e.g. DD/MM/YYYY)' }),
              NumberFormat,
            ])
            .optional()
            .describe('A date format string for a date, a NumberFormat object for a number.'),
          required: z.boolean().optional(),
        }),
      )
      .min(1),
  })
  .register(apiSchemas, { id: 'VariablesPatch' });

/** One immutable numbered file of a template, with its own variable settings (API.md §12). */
export const TemplateVersion = z
  .object({
    version: z.number().int().min(1),
    status: z.enum(['draft', 'published', 'superseded']),
    variables: z.array(TemplateVariable),
    corrected_tokens: z.array(z.object({ from: z.string(), to: z.string() })),
    file_sha256: z.string().describe("SHA-256 (hex) of the version's file as GET .../versions/{n}/file serves it."),
    promoted_from: PromotedFrom.nullable().describe('Set when promotion from a UAT template created this version.'),
    created_at: Timestamp,
    created_by: z.string().nullable().describe("The person's email or the API key's name; null for a version 1 that predates versions."),
    published_at: Timestamp.nullable().describe('When it was last published; null for a draft never published.'),
    published_by: z.string().nullable(),
  })
  .register(apiSchemas, { id: 'TemplateVersion' });

export const CreatedTemplateVersion = TemplateVersion.extend({
  warnings: z.array(z.string()).optional().describe('HTML uploads: problems that do not stop the version (as on upload).'),
}).register(apiSchemas, { id: 'CreatedTemplateVersion' });

export const TemplateVersionList = z.object({ items: z.array(TemplateVersion) }).register(apiSchemas, { id: 'TemplateVersionList' });

export const TemplateVersionUpload = z.object({
  file: BinaryFile.describe('The new version: a .docx for a DOCX template, a .html for an HTML template.'),
});

export const PublishBody = z
  .object({ force: z.boolean().optional().describe('Publish even when the change is breaking (`409 breaking_change` otherwise).') })
  .strict()
  .register(apiSchemas, { id: 'PublishBody' });

/** `?version=n` on PATCH .../variables: a draft's settings instead of the published version's. */
export const VariablesQuery = z.object({
  is_uat: IsUatParam,
  version: z
    .string()
    .regex(/^[1-9]\d{0,8}$/, { error: 'must be a version number' })
    .optional()
    .transform((value) => (value === undefined ? undefined : Number(value)))
    .describe('The version to edit (a draft, or the published one); default the published version.'),
});

/** `?version=n` on GET .../schema: the input of that version (a draft too, to try it) instead of the published one's. */
export const SchemaQuery = VariablesQuery.extend({
  version: VariablesQuery.shape.version.describe('The version whose input it describes (a draft too, to try it); default the published version.'),
});

export type TemplateVersionBody = z.output<typeof TemplateVersion>;
export type TemplateBody = z.output<typeof Template>;
export type TemplateVariableBody = z.output<typeof TemplateVariable>;
