import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { Page } from '../../../lib/types';

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  description?: string | null;
  is_uat: boolean;
  created_at: string;
}

export const listWebhooks = () => api<Page<WebhookEndpoint>>('/webhooks');

export function useWebhooks() {
  return useQuery({ queryKey: ['webhooks'], queryFn: listWebhooks });
}
