import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { DocumentPage, DocumentStatus } from '../../../lib/api-types';

export const HISTORY_PAGE_SIZE = 20;

export function listTemplateDocuments(
  templateId: string,
  isUat: boolean,
  status: DocumentStatus | undefined,
  cursor: string | undefined,
): Promise<DocumentPage> {
  return api<DocumentPage>(`/templates/${encodeURIComponent(templateId)}/documents`, {
    query: { is_uat: isUat, limit: HISTORY_PAGE_SIZE, status, cursor },
  });
}

/** The key every history of a template starts with: invalidating it refreshes them all. */
export const historyKey = (templateId: string) => ['history', templateId] as const;

/**
 * The template's history, newest first, a page at a time (`Load more`), optionally of one
 * status; polled while a row is still being rendered.
 */
export function useTemplateDocuments(templateId: string, isUat: boolean, status: DocumentStatus | undefined) {
  return useInfiniteQuery({
    queryKey: [...historyKey(templateId), { isUat, status }],
    queryFn: ({ pageParam }) => listTemplateDocuments(templateId, isUat, status, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: (q) => (q.state.data?.pages.some((page) => page.items.some((d) => d.status === 'queued' || d.status === 'rendering')) ? 1_000 : false),
  });
}
