import { WebhookEventPayload, type WebhookEventType } from '@docgen/contracts';

type DataOf<Event extends WebhookEventType> = Extract<WebhookEventPayload, { event: Event }>['data'];

/**
 * The one builder of webhook event payloads, for every kind: checked against the contract's
 * schema, so an event cannot go out in a shape API.md does not describe.
 */
export function buildEventPayload<Event extends WebhookEventType>(event: Event, jobId: string, occurredAt: Date, data: DataOf<Event>): WebhookEventPayload {
  return WebhookEventPayload.parse({ job_id: jobId, event, occurred_at: occurredAt.toISOString(), data });
}
