// Webhook endpoints and their delivery log: every write to webhook_endpoints and
// webhook_deliveries happens here, and the retry schedule lives here. The gateway's routes
// and the webhook dispatcher call these; errors are WebhookError (a code, never a status).
// The events themselves are packages/documents' (the outbox, the subscription rule).
export { WebhookError, webhookNotFound, type WebhookErrorCode } from './errors';
export { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_BACKOFF, DELIVERY_JOB_OPTIONS, retryDelayMs, deliveryBackoffStrategy } from './retry-schedule';
export { checkWebhookUrl } from './endpoints/check-webhook-url';
export { createEndpoint } from './endpoints/create-endpoint';
export { findEndpoint } from './endpoints/find-endpoint';
export { listEndpoints } from './endpoints/list-endpoints';
export { deleteEndpoint } from './endpoints/delete-endpoint';
export { listDeliveries } from './deliveries/list-deliveries';
export {
  startAttempt,
  deliveryProgress,
  AttemptOutcomes,
  logFirstAttempts,
  forgetAttemptsOf,
  type AttemptKey,
  type AttemptOutcome,
  type AttemptTarget,
  type DeliveryProgress,
} from './deliveries/attempt-log';
