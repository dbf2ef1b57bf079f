import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { Template } from '../../../lib/api-types';

export function getTemplate(id: string, isUat: boolean): Promise<Template> {
  return api<Template>(`/templates/${encodeURIComponent(id)}`, { query: { is_uat: isUat } });
}

export function useTemplate(id: string, isUat: boolean) {
  return useQuery({ queryKey: ['template', id, { isUat }], queryFn: () => getTemplate(id, isUat) });
}
