import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export interface Delivery {
  id: string;
  event: string;
  job_id: string;
  attempt: number;
  status: 'succeeded' | 'failed' | 'pending';
  response_status: number | null;
  error: string | null;
  created_at: string;
}

export const listDeliveries = (id: string) => api<{ items: Delivery[] }>(`/webhooks/${encodeURIComponent(id)}/deliveries`);

/** Polled while open, so a test delivery shows up as it happens. */
export function useDeliveries(id: string, enabled: boolean) {
  return useQuery({ queryKey: ['deliveries', id], queryFn: () => listDeliveries(id), enabled, refetchInterval: enabled ? 1_500 : false });
}
