import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { ApiKey } from '../../../lib/api-types';

export type { ApiKey };

export const listApiKeys = () => api<{ items: ApiKey[] }>('/api-keys');

export function useApiKeys() {
  return useQuery({ queryKey: ['api-keys'], queryFn: listApiKeys });
}
