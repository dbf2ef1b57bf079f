import { z } from 'zod';
import { MAX_VERSION_NUMBER } from './common';
import { apiSchemas } from './registry';
import { unstorableJson } from './storable-json';

/**
 * POST /templates/{id}/preview (API.md §14): the input to fill the first page with, checked
 * as POST /documents checks it (nothing is stored, but the same input must render the same).
 */
export const TemplatePreviewBody = z
  .object({
    input_json: z.record(z.string(), z.unknown(), { error: 'must be a JSON object of token values' }),
    template_version: z
      .int({ error: 'must be a version number' })
      .positive({ error: 'must be a version number (1 or more)' })
      .max(MAX_VERSION_NUMBER, { error: 'must be a version number' })
      .optional()
      .describe('The version to fill (a draft too, to try it); default: the published one.'),
  })
  .check((ctx) => {
    const unstorable = unstorableJson(ctx.value.input_json);
    if (unstorable) ctx.issues.push({ code: 'custom', input: ctx.value, path: ['input_json', ...unstorable.path], message: unstorable.message });
  })
  .register(apiSchemas, { id: 'TemplatePreviewRequest' });
