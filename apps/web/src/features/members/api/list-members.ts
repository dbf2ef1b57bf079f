import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export interface Member {
  id: string;
  email: string;
  role: 'admin' | 'member';
  created_at: string;
}

export const listMembers = () => api<{ items: Member[] }>('/members');

export function useMembers() {
  return useQuery({ queryKey: ['members'], queryFn: listMembers });
}
