import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { DocumentPage, DocumentStatus } from '../../../lib/api-types';

export interface DocumentFilters {
  isUat: boolean;
  status?: DocumentStatus;
  templateId?: string;
}

const PAGE_SIZE = 25;

export function listDocuments({ isUat, status, templateId }: DocumentFilters, cursor?: string): Promise<DocumentPage> {
  return api<DocumentPage>('/documents', { query: { is_uat: isUat, status, template_id: templateId, limit: PAGE_SIZE, cursor } });
}

/** Documents across templates, newest first, a page at a time; polled while one is still being rendered. */
export function useDocuments(filters: DocumentFilters) {
  return useInfiniteQuery({
    queryKey: ['documents', filters],
    queryFn: ({ pageParam }) => listDocuments(filters, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((d) => d.status === 'queued' || d.status === 'rendering')) ? 2_000 : false),
  });
}
