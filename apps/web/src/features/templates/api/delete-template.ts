import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function deleteTemplate({ id, isUat }: { id: string; isUat: boolean }): Promise<void> {
  return api<void>(`/templates/${encodeURIComponent(id)}`, { method: 'DELETE', query: { is_uat: isUat } });
}

export function useDeleteTemplate() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: deleteTemplate, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['templates'] }) });
}
