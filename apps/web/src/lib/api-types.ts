// The API's types, from one source: the OpenAPI document, as generated for @docgen/client
// (packages/client/src/generated/openapi.ts). Nothing here is written by hand, so nothing
// can drift from what the server sends.
import type { components } from '@docgen/client';

type Schemas = components['schemas'];

export type Template = Schemas['Template'];
export type TemplatePage = Schemas['TemplatePage'];
export type Variable = Schemas['TemplateVariable'];
export type VariableType = Variable['type'];
export type VariablePatch = Schemas['VariablesPatch']['variables'][number];
export type JsonSchema = Schemas['InputJsonSchema'];
export type DocumentRecord = Schemas['Document'];
export type DocumentPage = Schemas['DocumentPage'];
export type DocumentStatus = DocumentRecord['status'];
export type OutputFormat = DocumentRecord['output_format'];
export type CreateDocument = Schemas['CreateDocument'];
export type TemplatePreviewRequest = Schemas['TemplatePreviewRequest'];
export type BulkJob = Schemas['BulkJob'];
export type BulkJobPage = Schemas['BulkJobPage'];
export type Session = Schemas['Session'];
export type ApiKey = Schemas['ApiKey'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type Member = Schemas['Member'];
export type CreatedMember = Schemas['CreatedMember'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointPage = Schemas['WebhookEndpointPage'];
export type CreatedWebhookEndpoint = Schemas['CreatedWebhookEndpoint'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryPage = Schemas['WebhookDeliveryPage'];
export type FieldError = NonNullable<Schemas['ValidationError']['errors']>[number];
export type ErrorCode = Schemas['ErrorCode'];
export type SigningCertificate = Schemas['SigningCertificate'];
export type SigningCertificateList = Schemas['SigningCertificateList'];
export type TemplateVersion = Schemas['TemplateVersion'];
export type CreatedTemplateVersion = Schemas['CreatedTemplateVersion'];
export type TemplateVersionList = Schemas['TemplateVersionList'];
