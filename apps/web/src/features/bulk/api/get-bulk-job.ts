import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api, apiUrl } from '../../../lib/api-client';
import type { BulkJob } from '../../../lib/api-types';

export type { BulkJob };

export function getBulkJob(id: string, isUat: boolean): Promise<BulkJob> {
  return api<BulkJob>(`/bulk-jobs/${encodeURIComponent(id)}`, { query: { is_uat: isUat } });
}

export const bulkZipUrl = (id: string, isUat: boolean) => apiUrl(`/bulk-jobs/${encodeURIComponent(id)}/download`, { is_uat: isUat });

const isFinished = (job: BulkJob | undefined) => job?.status === 'completed' || job?.status === 'failed';

/**
 * Polls a bulk job until it completes or fails. Its rows are documents of the template: the
 * template's history (query key ['history', templateId]) is refreshed as rows finish and at the end.
 */
export function useBulkJob(id: string | undefined, isUat: boolean) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ['bulk-job', id],
    queryFn: () => getBulkJob(id!, isUat),
    enabled: Boolean(id),
    refetchInterval: (q) => (isFinished(q.state.data) ? false : 700),
  });
  const templateId = query.data?.template_id;
  const done = query.data ? query.data.succeeded + query.data.failed : 0;
  const finished = isFinished(query.data);
  useEffect(() => {
    if (templateId) void queryClient.invalidateQueries({ queryKey: ['history', templateId] });
  }, [done, finished, templateId, queryClient]);
  return query;
}
