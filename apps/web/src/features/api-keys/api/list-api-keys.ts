import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export const listApiKeys = () => api<{ items: ApiKey[] }>('/api-keys');

export function useApiKeys() {
  return useQuery({ queryKey: ['api-keys'], queryFn: listApiKeys });
}
