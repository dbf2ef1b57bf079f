import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { DocumentPage } from '../../../lib/api-types';

export function listTemplateDocuments(templateId: string, isUat: boolean): Promise<DocumentPage> {
  return api<DocumentPage>(`/templates/${encodeURIComponent(templateId)}/documents`, { query: { is_uat: isUat, limit: 20 } });
}

/** The template's history, newest first; polled while a row is still being rendered. */
export function useTemplateDocuments(templateId: string, isUat: boolean) {
  return useQuery({
    queryKey: ['history', templateId, { isUat }],
    queryFn: () => listTemplateDocuments(templateId, isUat),
    refetchInterval: (q) => (q.state.data?.items.some((d) => d.status === 'queued' || d.status === 'rendering') ? 1_000 : false),
  });
}
