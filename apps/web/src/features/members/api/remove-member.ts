import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const removeMember = (id: string) => api<void>(`/members/${encodeURIComponent(id)}`, { method: 'DELETE' });

export function useRemoveMember() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: removeMember, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['members'] }) });
}
