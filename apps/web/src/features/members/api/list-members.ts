import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { Member } from '../../../lib/api-types';

export type { Member };

export const listMembers = () => api<{ items: Member[] }>('/members');

export function useMembers() {
  return useQuery({ queryKey: ['members'], queryFn: listMembers });
}
