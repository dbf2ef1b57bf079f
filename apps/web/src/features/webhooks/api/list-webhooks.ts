import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { WebhookEndpoint, WebhookEndpointPage } from '../../../lib/api-types';

export type { WebhookEndpoint };

export const listWebhooks = () => api<WebhookEndpointPage>('/webhooks');

export function useWebhooks() {
  return useQuery({ queryKey: ['webhooks'], queryFn: listWebhooks });
}
