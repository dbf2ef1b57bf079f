import { useQuery } from '@tanstack/react-query';
import { api, apiUrl } from '../../../lib/api-client';
import type { BulkJob } from '../../../lib/api-types';

export type { BulkJob };

export function getBulkJob(id: string, isUat: boolean): Promise<BulkJob> {
  return api<BulkJob>(`/bulk-jobs/${encodeURIComponent(id)}`, { query: { is_uat: isUat } });
}

export const bulkZipUrl = (id: string, isUat: boolean) => apiUrl(`/bulk-jobs/${encodeURIComponent(id)}/download`, { is_uat: isUat });

export function useBulkJob(id: string | undefined, isUat: boolean) {
  return useQuery({
    queryKey: ['bulk-job', id],
    queryFn: () => getBulkJob(id!, isUat),
    enabled: Boolean(id),
    refetchInterval: (q) => (q.state.data?.status === 'completed' || q.state.data?.status === 'failed' ? false : 700),
  });
}
