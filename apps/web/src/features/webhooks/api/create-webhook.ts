import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { WebhookEndpoint } from './list-webhooks';

export const createWebhook = (body: { url: string }) => api<WebhookEndpoint & { secret: string }>('/webhooks', { method: 'POST', json: body });

export function useCreateWebhook() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: createWebhook, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhooks'] }) });
}
