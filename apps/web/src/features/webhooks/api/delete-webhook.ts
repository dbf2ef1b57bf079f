import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const deleteWebhook = (id: string) => api<void>(`/webhooks/${encodeURIComponent(id)}`, { method: 'DELETE' });

export function useDeleteWebhook() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: deleteWebhook, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhooks'] }) });
}
