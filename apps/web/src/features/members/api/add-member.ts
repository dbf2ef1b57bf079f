import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { Member } from './list-members';

export const addMember = (body: { email: string; role: Member['role'] }) => api<Member & { password: string }>('/members', { method: 'POST', json: body });

export function useAddMember() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: addMember, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['members'] }) });
}
