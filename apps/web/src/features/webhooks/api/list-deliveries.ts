import { useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { WebhookDelivery, WebhookDeliveryPage } from '../../../lib/api-types';

export type Delivery = WebhookDelivery;

export const listDeliveries = (id: string) => api<WebhookDeliveryPage>(`/webhooks/${encodeURIComponent(id)}/deliveries`);

/** Polled while open, so a test delivery shows up as it happens. */
export function useDeliveries(id: string, enabled: boolean) {
  return useQuery({ queryKey: ['deliveries', id], queryFn: () => listDeliveries(id), enabled, refetchInterval: enabled ? 1_500 : false });
}
