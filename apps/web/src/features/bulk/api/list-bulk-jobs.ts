import { useInfiniteQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { BulkJobPage } from '../../../lib/api-types';

const PAGE_SIZE = 25;

export function listBulkJobs(isUat: boolean, cursor?: string): Promise<BulkJobPage> {
  return api<BulkJobPage>('/bulk-jobs', { query: { is_uat: isUat, limit: PAGE_SIZE, cursor } });
}

/** Every bulk job of the environment, newest first, a page at a time; polled while one runs. */
export function useBulkJobs(isUat: boolean) {
  return useInfiniteQuery({
    queryKey: ['bulk-jobs', { isUat }],
    queryFn: ({ pageParam }) => listBulkJobs(isUat, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((j) => j.status === 'queued' || j.status === 'running')) ? 1_500 : false),
  });
}
