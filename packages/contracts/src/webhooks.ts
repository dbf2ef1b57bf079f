import { z } from 'zod';
import { CursorParam, IsUatParam, LimitParam, Timestamp, page } from './common';
import { apiSchemas } from './registry';

export const WEBHOOK_EVENTS = ['document.ready', 'document.failed', 'bulk.completed'] as const;
export const WebhookEvent = z.enum(WEBHOOK_EVENTS);

export const WebhookEndpoint = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(WebhookEvent),
    description: z.string().nullable(),
    is_uat: z.boolean(),
    created_at: Timestamp,
  })
  .register(apiSchemas, { id: 'WebhookEndpoint' });

export const CreatedWebhookEndpoint = WebhookEndpoint.extend({
  secret: z.string().describe('whsec_…: shown only in this response. Verify deliveries with it (Standard Webhooks).'),
}).register(apiSchemas, { id: 'CreatedWebhookEndpoint' });

export const WebhookEndpointPage = page(WebhookEndpoint).register(apiSchemas, { id: 'WebhookEndpointPage' });

export const CreateWebhookBody = z
  .object({
    url: z
      .string()
      .max(2048)
      .refine((value) => URL.canParse(value), { error: 'must be a URL' }),
    events: z.array(WebhookEvent).min(1).optional().describe('Default: all events.'),
    description: z.string().max(500).optional(),
    is_uat: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .register(apiSchemas, { id: 'CreateWebhook' });

export const WebhookDelivery = z
  .object({
    id: z.uuid(),
    event: z.string(),
    job_id: z.uuid(),
    attempt: z.int().positive(),
    status: z.enum(['succeeded', 'failed', 'pending']),
    response_status: z.int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.int().nullable(),
    created_at: Timestamp,
  })
  .register(apiSchemas, { id: 'WebhookDelivery' });

export const WebhookDeliveryPage = page(WebhookDelivery).register(apiSchemas, { id: 'WebhookDeliveryPage' });

export const WebhookTestAccepted = z.object({ job_id: z.uuid() }).register(apiSchemas, { id: 'WebhookTestAccepted' });

export const WebhookListQuery = z.object({ is_uat: IsUatParam, limit: LimitParam, cursor: CursorParam });

export type WebhookEndpointBody = z.output<typeof WebhookEndpoint>;
