import { z } from 'zod';
import { BulkJob } from './bulk-jobs';
import { Timestamp } from './common';
import { Document } from './documents';

/** The `data` of a `webhook.test` event. */
export const WebhookTestData = z.object({ endpoint_id: z.uuid(), message: z.string() });

const envelope = <Event extends string, Data extends z.ZodType>(event: Event, data: Data) =>
  z.object({ job_id: z.uuid(), event: z.literal(event), occurred_at: Timestamp, data });

/**
 * The body of every webhook delivery (API.md §webhooks): `{job_id, event, occurred_at, data}`,
 * where `data` is the document, the bulk job, or the test event's note.
 */
export const WebhookEventPayload = z.discriminatedUnion('event', [
  envelope('document.ready', Document),
  envelope('document.failed', Document),
  envelope('bulk.completed', BulkJob),
  envelope('webhook.test', WebhookTestData),
]);

export type WebhookEventPayload = z.output<typeof WebhookEventPayload>;
export type WebhookEventType = WebhookEventPayload['event'];
