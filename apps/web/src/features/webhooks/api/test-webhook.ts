import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const testWebhook = (id: string) => api<{ job_id: string }>(`/webhooks/${encodeURIComponent(id)}/test`, { method: 'POST' });

export function useTestWebhook(id: string) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: () => testWebhook(id), onSuccess: () => queryClient.invalidateQueries({ queryKey: ['deliveries', id] }) });
}
