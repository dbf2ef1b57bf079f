import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const revokeApiKey = (id: string) => api<void>(`/api-keys/${encodeURIComponent(id)}`, { method: 'DELETE' });

export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: revokeApiKey, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }) });
}
