import { DomainError } from '@docgen/contracts';

/** Why an endpoint change was refused; the gateway's error table gives the status. */
export type WebhookErrorCode = 'webhook_not_found' | 'validation_failed';

/** A domain error of webhook endpoints: a code and a sentence, never an HTTP status. */
export class WebhookError extends DomainError<WebhookErrorCode> {}

export const webhookNotFound = () => new WebhookError('webhook_not_found', 'Webhook endpoint not found');
