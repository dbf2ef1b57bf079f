export {
  createClient,
  type ClientOptions,
  type DocgenClient,
  type GenerateParams,
  type GeneratedDocument,
  type WaitOptions,
  type RequestOptions,
  type BulkJobParams,
  type Template,
  type TemplatePage,
  type BulkJob,
  type FileFormat,
} from './client.js';
export { verifyWebhook, type WebhookEvent, type WebhookHeaders, type VerifyOptions } from './webhooks.js';
export { WebhookEvents } from './webhook-events.js';
export {
  DocgenError,
  DocgenApiError,
  DocgenConnectionError,
  DocgenTimeoutError,
  DocumentFailedError,
  WebhookVerificationError,
  type Document,
  type FieldError,
  type ErrorCode,
} from './errors.js';
export type { RetryInfo, RetryOptions } from './retrying-fetch.js';
export type { paths, components, operations } from './generated/openapi.js';
