import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { TemplateVersionList } from '../../../lib/api-types';

export function listTemplateVersions(id: string, isUat: boolean): Promise<TemplateVersionList> {
  return api<TemplateVersionList>(`/templates/${encodeURIComponent(id)}/versions`, { query: { is_uat: isUat } });
}

/** Under the template's key: whatever refreshes the template (a publish, a new draft) refreshes its versions. */
export const versionsKey = (id: string, isUat: boolean) => ['template', id, { isUat }, 'versions'] as const;

/** The template's versions, newest first. */
export function useTemplateVersions(id: string, isUat: boolean) {
  return useQuery({ queryKey: versionsKey(id, isUat), queryFn: () => listTemplateVersions(id, isUat) });
}
