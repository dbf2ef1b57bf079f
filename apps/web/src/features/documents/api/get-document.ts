import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api } from '../../../lib/api-client';
import type { DocumentRecord } from '../../../lib/api-types';

export function getDocument(id: string, isUat: boolean): Promise<DocumentRecord> {
  return api<DocumentRecord>(`/documents/${encodeURIComponent(id)}`, { query: { is_uat: isUat } });
}

export const isFinished = (document: DocumentRecord | undefined) => document?.status === 'ready' || document?.status === 'failed';

/** Polls a document until it is ready or failed, then refreshes the template's history. */
export function useDocument(id: string | undefined, isUat: boolean) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ['document', id],
    queryFn: () => getDocument(id!, isUat),
    enabled: Boolean(id),
    refetchInterval: (q) => (isFinished(q.state.data) ? false : 500),
  });
  const finished = isFinished(query.data);
  const templateId = query.data?.template_id;
  useEffect(() => {
    if (finished && templateId) void queryClient.invalidateQueries({ queryKey: ['history', templateId] });
  }, [finished, templateId, queryClient]);
  return query;
}
