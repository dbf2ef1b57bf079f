import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { TemplatePage } from '../../../lib/api-types';

export function listTemplates(isUat: boolean): Promise<TemplatePage> {
  return api<TemplatePage>('/templates', { query: { is_uat: isUat, limit: 100 } });
}

export function useTemplates(isUat: boolean) {
  return useQuery({ queryKey: ['templates', { isUat }], queryFn: () => listTemplates(isUat) });
}
