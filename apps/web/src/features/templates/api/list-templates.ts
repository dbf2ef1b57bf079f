import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { Page, Template } from '../../../lib/types';

export function listTemplates(isUat: boolean): Promise<Page<Template>> {
  return api<Page<Template>>('/templates', { query: { is_uat: isUat, limit: 100 } });
}

export function useTemplates(isUat: boolean) {
  return useQuery({ queryKey: ['templates', { isUat }], queryFn: () => listTemplates(isUat) });
}
