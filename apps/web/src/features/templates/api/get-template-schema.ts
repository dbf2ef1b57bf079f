import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { JsonSchema } from '../../../lib/api-types';

/** The JSON Schema a document's input_json meets at render time. */
export function getTemplateSchema(id: string, isUat: boolean): Promise<JsonSchema> {
  return api<JsonSchema>(`/templates/${encodeURIComponent(id)}/schema`, { query: { is_uat: isUat } });
}

export function useTemplateSchema(id: string, isUat: boolean, updatedAt: string | undefined) {
  return useQuery({
    queryKey: ['template', id, { isUat }, 'schema', updatedAt],
    queryFn: () => getTemplateSchema(id, isUat),
    enabled: Boolean(updatedAt),
  });
}
