import { Template as TemplateSchema, type TemplateBody } from '@docgen/contracts';
import type { Template } from '@docgen/db';

export function presentTemplate(template: Template): TemplateBody {
  return TemplateSchema.parse({
    id: template.id,
    name: template.name,
    format: template.format,
    is_uat: template.isUat,
    variables: template.variables,
    corrected_tokens: template.correctedTokens,
    created_at: template.createdAt.toISOString(),
    updated_at: template.updatedAt.toISOString(),
  });
}
