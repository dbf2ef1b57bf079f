import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { ApiKey } from './list-api-keys';

export function createApiKey(body: { name: string; expires_at?: string }): Promise<ApiKey & { key: string }> {
  return api('/api-keys', { method: 'POST', json: body });
}

export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: createApiKey, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }) });
}
