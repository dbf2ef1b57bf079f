import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { JsonSchema } from '../../../lib/api-types';

/** The JSON Schema a document's input_json meets at render time: of the published version, or of `version` (one being tried). */
export function getTemplateSchema(id: string, isUat: boolean, version?: number): Promise<JsonSchema> {
  return api<JsonSchema>(`/templates/${encodeURIComponent(id)}/schema`, { query: { is_uat: isUat, version } });
}

export function useTemplateSchema(id: string, isUat: boolean, updatedAt: string | undefined, version?: number) {
  return useQuery({
    queryKey: ['template', id, { isUat }, 'schema', updatedAt, version ?? 'published'],
    queryFn: () => getTemplateSchema(id, isUat, version),
    enabled: Boolean(updatedAt),
  });
}
