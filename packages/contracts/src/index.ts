export { apiSchemas } from './registry';
export { DomainError, type Problem } from './domain-error';
export {
  ErrorBody,
  ErrorCode,
  ERROR_CODES,
  MessageBody,
  RateLimitedBody,
  ValidationErrorBody,
  errorResponses,
  ERROR_DESCRIPTIONS,
  type ErrorStatus,
} from './errors';
export { MeResponse } from './me';
export { operations, type Operation, type OperationById, type OperationId } from './operations';
export { buildOpenApiDocument } from './openapi';
export { BulkJob, BulkJobListQuery, BulkJobPage, BulkJobStatus, BulkJobUpload, type BulkJobBody } from './bulk-jobs';
export { BinaryFile, IsUatParam, LimitParam, CursorParam, ListQuery, EnvironmentQuery, page, isUuid } from './common';
export {
  Template,
  TemplatePage,
  TemplateUpload,
  TemplateVariable,
  VariablesPatch,
  VariableType,
  NumberFormat,
  Locale,
  isSupportedLocale,
  canonicalLocale,
  TemplatePatch,
  CreatedTemplate,
  InputJsonSchema,
  isDateFormat,
  DEFAULT_DATE_FORMAT,
  PromotedFrom,
  TemplateVersion,
  CreatedTemplateVersion,
  TemplateVersionList,
  TemplateVersionUpload,
  PublishBody,
  VariablesQuery,
  SchemaQuery,
  type TemplateBody,
  type TemplateVariableBody,
  type TemplateVersionBody,
} from './templates';
export { TemplatePreviewBody } from './live-preview';
export {
  Document,
  DocumentPage,
  DocumentStatus,
  CreateDocumentBody,
  CreateMergeBody,
  MAX_MERGE_SOURCES,
  DocumentListQuery,
  TemplateHistoryQuery,
  DownloadQuery,
  IdempotencyKeyHeader,
  OutputFormat,
  FileFormat,
  PdfStandard,
  PdfOptions,
  REDACTED,
  pdfOptionsIssues,
  type DocumentBody,
} from './documents';
export {
  presentApiKey,
  presentBulkJob,
  presentDocument,
  presentTemplate,
  presentTemplateVersion,
  type ApiKeyRecord,
  type BulkJobRecord,
  type DocumentRecord,
  type TemplateRecord,
  type TemplateVersionRecord,
} from './present';
export {
  WEBHOOK_EVENTS,
  WebhookEvent,
  WebhookEndpoint,
  CreatedWebhookEndpoint,
  WebhookEndpointPage,
  CreateWebhookBody,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookTestAccepted,
  WebhookListQuery,
  type WebhookEndpointBody,
} from './webhooks';
export { matchOperation } from './match-operation';
export type { Access } from './operations';
export {
  Role,
  Session,
  SignInBody,
  ChangePasswordBody,
  ApiKey,
  ApiKeyList,
  CreatedApiKey,
  CreateApiKeyBody,
  Member,
  MemberList,
  CreatedMember,
  CreateMemberBody,
  SESSION_COOKIE,
  CSRF_HEADER,
} from './people';
export { WebhookEventPayload, WebhookTestData, type WebhookEventType } from './webhook-events';
export { unstorableJson, MAX_JSON_DEPTH, UNSTORABLE_TEXT_MESSAGE, TOO_DEEP_MESSAGE, type UnstorableJson } from './storable-json';
export {
  SigningCertificate,
  SigningCertificateList,
  SigningCertificateUpload,
  presentSigningCertificate,
  type SigningCertificateRecord,
} from './signing-certificates';
