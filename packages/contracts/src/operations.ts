import type { z } from 'zod';
import { BulkJob, BulkJobListQuery, BulkJobPage, BulkJobUpload } from './bulk-jobs';
import { ErrorBody, MessageBody, RateLimitedBody, ValidationErrorBody, errorResponses } from './errors';
import { EnvironmentQuery, ListQuery } from './common';
import { CreateDocumentBody, CreateMergeBody, Document, DocumentListQuery, DocumentPage, DownloadQuery, TemplateHistoryQuery } from './documents';
import { TemplatePreviewBody } from './live-preview';
import { MeResponse } from './me';
import { ApiKeyList, ChangePasswordBody, CreateApiKeyBody, CreateMemberBody, CreatedApiKey, CreatedMember, MemberList, Session, SignInBody } from './people';
import { SigningCertificate, SigningCertificateList, SigningCertificateUpload } from './signing-certificates';
import {
  CreatedTemplate,
  CreatedTemplateVersion,
  InputJsonSchema,
  PublishBody,
  Template,
  TemplatePage,
  TemplatePatch,
  TemplateUpload,
  TemplateVersion,
  TemplateVersionList,
  TemplateVersionUpload,
  VariablesPatch,
  VariablesQuery,
  SchemaQuery,
} from './templates';
import { CreateWebhookBody, CreatedWebhookEndpoint, WebhookDeliveryPage, WebhookEndpointPage, WebhookListQuery, WebhookTestAccepted } from './webhooks';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
  /** Response headers beyond the rate-limit ones every authenticated response has. */
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
}

export interface HeaderParameter {
  name: string;
  description: string;
  required: boolean;
  schema: Record<string, unknown>;
}

export type Access = 'anyone' | 'admin' | 'admin-session' | 'session';

export interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI path template, e.g. /api/v1/templates/{id}. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Requires X-API-Key or the session cookie (and counts against the rate limit). */
  authenticated: boolean;
  /**
   * Who may call it (default `anyone`: API keys and every role). `admin`: API keys and
   * admins; `admin-session`: admins signed in to the web UI only; `session`: any signed-in
   * person. The gateway enforces it from this table (apps/gateway/src/middleware/authorize.ts).
   */
  access?: Access;
  query?: z.ZodObject;
  headers?: readonly HeaderParameter[];
  body?: JsonBody | MultipartBody;
  responses: Record<number, ResponseSpec>;
}

/** A JSON request body. */
export interface JsonBody {
  contentType: 'application/json';
  schema: z.ZodType;
  /** What its 415 asks for: "Send <name> as application/json". Not part of the OpenAPI document. */
  name: string;
  /** The body may be left out: a request without one is read as `{}` (publish, promote). */
  optional?: boolean;
}

/** A multipart upload: the file in the field `file`, the schema's other fields beside it. */
export interface MultipartBody {
  contentType: 'multipart/form-data';
  schema: z.ZodObject;
}

/**
 * One entry of the table, keeping its own types (literal method, path and operationId, its
 * query, body and response schemas) so the gateway's handlers are typed from it.
 */
export function defineOperation<const Op extends Operation>(operation: Op): Op {
  return operation;
}

/** The public HTTP API, one entry per operation. Routes are registered from it and validate with these same schemas. */
const operationTable = [
  defineOperation({
    method: 'get',
    path: '/api/v1/me',
    operationId: 'getMe',
    summary: 'The organisation and API key this request authenticates as',
    tag: 'Account',
    authenticated: true,
    responses: { 200: { description: 'The caller', schema: MeResponse }, ...errorResponses(401, 429, 503) },
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/templates',
    operationId: 'createTemplate',
    summary: 'Upload a template (.docx or .html)',
    tag: 'Templates',
    authenticated: true,
    query: EnvironmentQuery,
    body: { contentType: 'multipart/form-data', schema: TemplateUpload },
    responses: {
      201: { description: 'The stored template', schema: CreatedTemplate },
      ...errorResponses(401, 413, 415, 422, 429, 503),
      429: {
        description: 'Organisation over its rate limit, or (HTML) already converting as many HTML uploads as it may at once (see Retry-After)',
        schema: RateLimitedBody,
      },
      503: {
        description: 'A dependency (PostgreSQL or Redis) is unreachable, or (HTML) no render worker converted the file in time; nothing was stored',
        schema: ErrorBody,
      },
    },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/templates',
    operationId: 'listTemplates',
    summary: "The organisation's templates in one environment, newest first",
    tag: 'Templates',
    authenticated: true,
    query: ListQuery,
    responses: { 200: { description: 'A page of templates', schema: TemplatePage }, ...errorResponses(401, 422, 429, 503) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/templates/{id}',
    operationId: 'getTemplate',
    summary: 'One template',
    tag: 'Templates',
    authenticated: true,
    query: EnvironmentQuery,
    responses: { 200: { description: 'The template', schema: Template }, ...errorResponses(401, 404, 422, 429, 503) },
  }),
  defineOperation({
    method: 'patch',
    path: '/api/v1/templates/{id}/variables',
    operationId: 'updateTemplateVariables',
    summary:
      'Change variable types (text ↔ date ↔ number, boolean ↔ list, list fields as "items.price"), formats and whether they are required: of the published version, or of `version` (a draft)',
    tag: 'Templates',
    authenticated: true,
    query: VariablesQuery,
    body: { contentType: 'application/json', schema: VariablesPatch, name: 'the variables' },
    responses: { 200: { description: 'The updated template', schema: Template }, ...errorResponses(400, 401, 404, 413, 415, 422, 429, 503) },
  }),
  defineOperation({
    method: 'patch',
    path: '/api/v1/templates/{id}',
    operationId: 'updateTemplate',
    summary: 'Rename a template, or change its locale (BCP 47), in which its numbers and dates render',
    tag: 'Templates',
    authenticated: true,
    query: EnvironmentQuery,
    body: { contentType: 'application/json', schema: TemplatePatch, name: 'the template changes' },
    responses: { 200: { description: 'The updated template', schema: Template }, ...errorResponses(400, 401, 404, 413, 415, 422, 429, 503) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/templates/{id}/schema',
    operationId: 'getTemplateInputSchema',
    summary: "A JSON Schema (draft 2020-12) of input_json: exactly the check a document's input meets at render time, for the published version or `version`",
    tag: 'Templates',
    authenticated: true,
    query: SchemaQuery,
    responses: { 200: { description: 'The JSON Schema', schema: InputJsonSchema }, ...errorResponses(401, 404, 422, 429, 503) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/templates/{id}/file',
    operationId: 'downloadTemplateFile',
    summary: 'The stored template file (DOCX; HTML uploads as converted)',
    tag: 'Templates',
    authenticated: true,
    query: EnvironmentQuery,
    responses: {
      200: { description: 'The DOCX', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
      ...errorResponses(401, 404, 422, 429, 503),
    },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/templates/{id}/preview',
    operationId: 'getTemplatePreview',
    summary: 'The first page of the template as uploaded (tags visible), a PNG about 600 px wide',
    tag: 'Templates',
    authenticated: true,
    query: EnvironmentQuery,
    responses: {
      200: { description: 'The preview', contentType: 'image/png' },
      202: {
        description: 'The preview is being prepared (rendered once per template by a render worker); ask again after Retry-After seconds',
        schema: MessageBody,
        headers: { 'Retry-After': { description: 'Seconds to wait before asking again', schema: { type: 'integer' } } },
      },
      ...errorResponses(401, 404, 409, 422, 429, 503),
      409: { description: 'The template has no preview: its first page could not be rendered (`detail` says why)', schema: ErrorBody },
    },
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/templates/{id}/preview',
    operationId: 'renderTemplatePreview',
    summary: 'The first page of the template filled with input_json, as a PNG (the live preview); nothing is stored',
    tag: 'Templates',
    authenticated: true,
    query: EnvironmentQuery,
    body: { contentType: 'application/json', schema: TemplatePreviewBody, name: 'the preview request' },
    responses: {
      200: {
        description: 'The filled first page, its longer side 1100 px (an A4 page is 778 x 1100); rendered by a render worker and not stored',
        contentType: 'image/png',
      },
      ...errorResponses(400, 401, 404, 413, 415, 422, 429, 503),
      404: { description: "Unknown template (or another organisation's or environment's), or a template_version it does not have", schema: ErrorBody },
      422: {
        description:
          'The body, or input_json against the template (`errors` lists every problem, as a failed document would), or a template that cannot be rendered',
        schema: ValidationErrorBody,
      },
      429: {
        description:
          "Over the organisation's or session's rate limit, or over PREVIEW_RATE_LIMIT previews a minute for this person or API key (see Retry-After)",
        schema: RateLimitedBody,
      },
      503: { description: 'A dependency is unreachable, or no render worker rendered the preview in time (PREVIEW_TIMEOUT_MS)', schema: ErrorBody },
    },
  }),
  defineOperation({
    method: 'delete',
    path: '/api/v1/templates/{id}',
    operationId: 'deleteTemplate',
    summary: 'Delete a template; its documents stay readable',
    tag: 'Templates',
    authenticated: true,
    query: EnvironmentQuery,
    responses: { 204: { description: 'Deleted' }, ...errorResponses(401, 404, 422, 429, 503) },
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/templates/{id}/versions',
    operationId: 'createTemplateVersion',
    summary: 'Upload a new file for a template: its next version, a draft, checked like an upload',
    tag: 'Template versions',
    authenticated: true,
    query: EnvironmentQuery,
    body: { contentType: 'multipart/form-data', schema: TemplateVersionUpload },
    responses: { 201: { description: 'The draft version', schema: CreatedTemplateVersion }, ...errorResponses(401, 404, 413, 415, 422, 429, 503) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/templates/{id}/versions',
    operationId: 'listTemplateVersions',
    summary: "A template's versions, newest first",
    tag: 'Template versions',
    authenticated: true,
    query: EnvironmentQuery,
    responses: { 200: { description: 'The versions', schema: TemplateVersionList }, ...errorResponses(401, 404, 422, 429, 503) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/templates/{id}/versions/{n}',
    operationId: 'getTemplateVersion',
    summary: 'One version of a template',
    tag: 'Template versions',
    authenticated: true,
    query: EnvironmentQuery,
    responses: { 200: { description: 'The version', schema: TemplateVersion }, ...errorResponses(401, 404, 422, 429, 503) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/templates/{id}/versions/{n}/file',
    operationId: 'downloadTemplateVersionFile',
    summary: "A version's stored file (DOCX; HTML uploads as converted)",
    tag: 'Template versions',
    authenticated: true,
    query: EnvironmentQuery,
    responses: {
      200: { description: 'The DOCX', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
      ...errorResponses(401, 404, 422, 429, 503),
    },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/templates/{id}/versions/{n}/preview',
    operationId: 'getTemplateVersionPreview',
    summary: "A version's first page (tags visible), a PNG about 600 px wide",
    tag: 'Template versions',
    authenticated: true,
    query: EnvironmentQuery,
    responses: {
      200: { description: 'The preview', contentType: 'image/png' },
      202: {
        description: 'The preview is being prepared by a render worker; ask again after Retry-After seconds',
        schema: MessageBody,
        headers: { 'Retry-After': { description: 'Seconds to wait before asking again', schema: { type: 'integer' } } },
      },
      ...errorResponses(401, 404, 409, 422, 429, 503),
      409: { description: 'The version has no preview: its first page could not be rendered (`detail` says why)', schema: ErrorBody },
    },
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/templates/{id}/versions/{n}/publish',
    operationId: 'publishTemplateVersion',
    summary: 'Publish a version: it renders by default from now on (publishing an older version is a rollback)',
    tag: 'Template versions',
    authenticated: true,
    query: EnvironmentQuery,
    body: { contentType: 'application/json', schema: PublishBody, name: 'the publish options', optional: true },
    responses: {
      200: { description: 'The template, now at this version', schema: Template },
      ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429, 503),
      409: {
        description: 'breaking_change: it would reject inputs the published version accepts; `errors` names each change (send `force: true` to publish anyway)',
        schema: ValidationErrorBody,
      },
    },
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/templates/{id}/promote',
    operationId: 'promoteTemplate',
    summary:
      "Promote a UAT template's published version to production: the production template of the same name is created on the first promotion, and gets a new published version afterwards",
    tag: 'Template versions',
    authenticated: true,
    query: EnvironmentQuery,
    body: { contentType: 'application/json', schema: PublishBody, name: 'the promotion options', optional: true },
    responses: {
      200: { description: 'The production template', schema: Template },
      ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429, 503),
      409: {
        description: "breaking_change: it would reject inputs the production template's published version accepts; `errors` names each change",
        schema: ValidationErrorBody,
      },
    },
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/documents',
    operationId: 'createDocument',
    summary: 'Request a document (asynchronous)',
    tag: 'Documents',
    authenticated: true,
    query: EnvironmentQuery,
    headers: [
      {
        name: 'X-Idempotency-Key',
        description: 'Makes retries safe: a key sent before returns its document instead of generating another',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      },
    ],
    body: { contentType: 'application/json', schema: CreateDocumentBody, name: 'the request' },
    responses: {
      202: { description: 'Queued (or a failed document retried under its idempotency key)', schema: Document },
      200: {
        description: 'Idempotent replay: the document created earlier with this key',
        schema: Document,
        headers: { 'Idempotent-Replayed': { description: 'Always "true" on a replay', schema: { type: 'string', const: 'true' } } },
      },
      ...errorResponses(400, 401, 404, 413, 415, 422, 429, 503),
      429: {
        description: `Organisation over its rate limit, or with MAX_ACTIVE_PER_ORG documents queued or rendering ("Too many documents in progress for this organisation; try again later."); see Retry-After`,
        schema: RateLimitedBody,
      },
    },
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/merges',
    operationId: 'createMerge',
    summary: "One PDF of 2–100 ready documents' pages, in order: a new document (asynchronous)",
    tag: 'Documents',
    authenticated: true,
    query: EnvironmentQuery,
    headers: [
      {
        name: 'X-Idempotency-Key',
        description: 'Makes retries safe: a key sent before returns its document instead of merging again (one key space with POST /documents)',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      },
    ],
    body: { contentType: 'application/json', schema: CreateMergeBody, name: 'the merge' },
    responses: {
      202: { description: 'Queued: a Document with template_id null and merged_from (or a failed merge retried under its idempotency key)', schema: Document },
      200: {
        description: 'Idempotent replay: the merge created earlier with this key',
        schema: Document,
        headers: { 'Idempotent-Replayed': { description: 'Always "true" on a replay', schema: { type: 'string', const: 'true' } } },
      },
      ...errorResponses(400, 401, 413, 415, 422, 429, 503),
      422: {
        description:
          'Validation failed, or a listed document cannot be merged (unknown, of another organisation or environment, not ready, without a PDF, purged, encrypted): `errors` names each by its path, e.g. documents.1',
        schema: ValidationErrorBody,
      },
      429: {
        description: `Organisation over its rate limit, or with MAX_ACTIVE_PER_ORG documents queued or rendering ("Too many documents in progress for this organisation; try again later."); see Retry-After`,
        schema: RateLimitedBody,
      },
    },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/documents',
    operationId: 'listDocuments',
    summary: 'Documents, newest first',
    tag: 'Documents',
    authenticated: true,
    query: DocumentListQuery,
    responses: { 200: { description: 'A page of documents', schema: DocumentPage }, ...errorResponses(401, 422, 429, 503) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/documents/{id}',
    operationId: 'getDocument',
    summary: 'One document',
    tag: 'Documents',
    authenticated: true,
    query: EnvironmentQuery,
    responses: { 200: { description: 'The document', schema: Document }, ...errorResponses(401, 404, 422, 429, 503) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/documents/{id}/download',
    operationId: 'downloadDocument',
    summary: 'The generated file; `format` may be omitted when only one exists',
    tag: 'Documents',
    authenticated: true,
    query: DownloadQuery,
    responses: {
      200: { description: 'application/pdf or the DOCX type, as an attachment', contentType: 'application/pdf' },
      302: {
        description: 'DOWNLOAD_REDIRECT=true: Location is a presigned URL of the object store, valid DOWNLOAD_URL_TTL_S, answering with the same headers',
      },
      ...errorResponses(401, 404, 409, 410, 422, 429, 503),
    },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/templates/{id}/documents',
    operationId: 'listTemplateDocuments',
    summary: "The template's history: its documents, newest first",
    tag: 'Templates',
    authenticated: true,
    query: TemplateHistoryQuery,
    responses: { 200: { description: 'A page of documents', schema: DocumentPage }, ...errorResponses(401, 404, 422, 429, 503) },
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/webhooks',
    operationId: 'createWebhook',
    summary: 'Register an HTTPS endpoint for events; the secret is shown only here',
    tag: 'Webhooks',
    authenticated: true,
    access: 'admin',
    query: EnvironmentQuery,
    body: { contentType: 'application/json', schema: CreateWebhookBody, name: 'the endpoint' },
    responses: { 201: { description: 'The endpoint, with its secret', schema: CreatedWebhookEndpoint }, ...errorResponses(400, 401, 413, 415, 422, 429, 503) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/webhooks',
    operationId: 'listWebhooks',
    summary: 'Endpoints of the environment, newest first',
    tag: 'Webhooks',
    authenticated: true,
    access: 'admin',
    query: WebhookListQuery,
    responses: { 200: { description: 'A page of endpoints', schema: WebhookEndpointPage }, ...errorResponses(401, 422, 429, 503) },
  }),
  defineOperation({
    method: 'delete',
    path: '/api/v1/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Stop delivering to an endpoint',
    tag: 'Webhooks',
    authenticated: true,
    access: 'admin',
    query: EnvironmentQuery,
    responses: { 204: { description: 'Deleted' }, ...errorResponses(401, 404, 422, 429, 503) },
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/webhooks/{id}/test',
    operationId: 'testWebhook',
    summary: 'Deliver a webhook.test event to the endpoint',
    tag: 'Webhooks',
    authenticated: true,
    access: 'admin',
    query: EnvironmentQuery,
    responses: { 202: { description: 'Queued', schema: WebhookTestAccepted }, ...errorResponses(401, 404, 422, 429, 503) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'Every delivery attempt to the endpoint, newest first',
    tag: 'Webhooks',
    authenticated: true,
    access: 'admin',
    query: WebhookListQuery,
    responses: { 200: { description: 'A page of attempts', schema: WebhookDeliveryPage }, ...errorResponses(401, 404, 422, 429, 503) },
  }),
  defineOperation({
    method: 'post',
    path: '/api/v1/bulk-jobs',
    operationId: 'createBulkJob',
    summary: 'One document per spreadsheet row (.xlsx or .csv), collected into one ZIP',
    tag: 'Bulk generation',
    authenticated: true,
    query: EnvironmentQuery,
    body: { contentType: 'multipart/form-data', schema: BulkJobUpload },
    responses: {
      202: { description: 'Every row queued', schema: BulkJob },
      ...errorResponses(401, 404, 413, 415, 422, 429, 503),
      429: {
        description: `Organisation over its rate limit, or with MAX_ACTIVE_PER_ORG documents queued or rendering ("Too many documents in progress for this organisation; try again later."); see Retry-After`,
        schema: RateLimitedBody,
      },
    },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/bulk-jobs',
    operationId: 'listBulkJobs',
    summary: 'Bulk jobs of the environment, newest first',
    tag: 'Bulk generation',
    authenticated: true,
    query: BulkJobListQuery,
    responses: { 200: { description: 'A page of bulk jobs', schema: BulkJobPage }, ...errorResponses(401, 422, 429, 503) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/bulk-jobs/{id}',
    operationId: 'getBulkJob',
    summary: 'A bulk job with live counts',
    tag: 'Bulk generation',
    authenticated: true,
    query: EnvironmentQuery,
    responses: { 200: { description: 'The bulk job', schema: BulkJob }, ...errorResponses(401, 404, 422, 429, 503) },
  }),
  defineOperation({
    method: 'get',
    path: '/api/v1/bulk-jobs/{id}/download',
    operationId: 'downloadBulkJob',
    summary: 'The ZIP: row-NNNN.<ext> per successful row and errors.xlsx',
    tag: 'Bulk generation',
    authenticated: true,
    query: EnvironmentQuery,
    responses: {
      200: { description: 'The ZIP, as an attachment', contentType: 'application/zip' },
      302: { description: 'DOWNLOAD_REDIRECT=true: Location is a presigned URL of the object store, valid DOWNLOAD_URL_TTL_S' },
      ...errorResponses(401, 404, 409, 410, 422, 429, 503),
    },
  }),
  ...peopleOperations(),
] as const;

/** The table as a list; OperationById gives one entry with its own types. */
export const operations: readonly Operation[] = operationTable;

export type OperationId = (typeof operationTable)[number]['operationId'];

/** The table's entry for an operationId, with its own schema types. */
export type OperationById<Id extends OperationId> = Extract<(typeof operationTable)[number], { operationId: Id }>;

function peopleOperations() {
  return [
    defineOperation({
      method: 'post',
      path: '/api/v1/session',
      operationId: 'signIn',
      summary: 'Sign in with email and password; sets the docgen_session cookie',
      tag: 'Sessions and people',
      authenticated: false,
      body: { contentType: 'application/json', schema: SignInBody, name: 'the email and password' },
      responses: {
        200: {
          description: 'Signed in',
          schema: Session,
          headers: { 'Set-Cookie': { description: 'docgen_session=…; HttpOnly; SameSite=Lax; Path=/ (Secure over HTTPS)', schema: { type: 'string' } } },
        },
        ...errorResponses(400, 401, 413, 415, 422, 429, 503),
      },
    }),
    defineOperation({
      method: 'get',
      path: '/api/v1/session',
      operationId: 'getSession',
      summary: 'The signed-in person, their organisation and the CSRF token',
      tag: 'Sessions and people',
      authenticated: true,
      access: 'session',
      responses: { 200: { description: 'The session', schema: Session }, ...errorResponses(401, 429, 503) },
    }),
    defineOperation({
      method: 'delete',
      path: '/api/v1/session',
      operationId: 'signOut',
      summary: 'Sign out: the session ends on every replica and the cookie is cleared',
      tag: 'Sessions and people',
      authenticated: true,
      access: 'session',
      responses: { 204: { description: 'Signed out (not rate-limited: ending a session is never refused)' }, ...errorResponses(401, 503) },
    }),
    defineOperation({
      method: 'post',
      path: '/api/v1/session/password',
      operationId: 'changePassword',
      summary: "Change the signed-in person's password; their other sessions end",
      tag: 'Sessions and people',
      authenticated: true,
      access: 'session',
      body: { contentType: 'application/json', schema: ChangePasswordBody, name: 'the passwords' },
      responses: { 204: { description: 'Changed' }, ...errorResponses(400, 401, 413, 415, 422, 429, 503) },
    }),
    defineOperation({
      method: 'get',
      path: '/api/v1/api-keys',
      operationId: 'listApiKeys',
      summary: "The organisation's API keys, newest first (never their values)",
      tag: 'Sessions and people',
      authenticated: true,
      access: 'admin-session',
      responses: { 200: { description: 'Every key, revoked and expired ones included', schema: ApiKeyList }, ...errorResponses(401, 429, 503) },
    }),
    defineOperation({
      method: 'post',
      path: '/api/v1/api-keys',
      operationId: 'createApiKey',
      summary: 'Create an API key; the key is shown only here',
      tag: 'Sessions and people',
      authenticated: true,
      access: 'admin-session',
      body: { contentType: 'application/json', schema: CreateApiKeyBody, name: 'the key' },
      responses: { 201: { description: 'The key, with its value', schema: CreatedApiKey }, ...errorResponses(400, 401, 413, 415, 422, 429, 503) },
    }),
    defineOperation({
      method: 'delete',
      path: '/api/v1/api-keys/{id}',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key: its next request, on any replica, is 401',
      tag: 'Sessions and people',
      authenticated: true,
      access: 'admin-session',
      responses: { 204: { description: 'Revoked' }, ...errorResponses(401, 404, 429, 503) },
    }),
    defineOperation({
      method: 'post',
      path: '/api/v1/signing-certificates',
      operationId: 'uploadSigningCertificate',
      summary: "Upload the environment's PDF signing certificate (PKCS#12); it replaces the previous one",
      tag: 'Signing certificates',
      authenticated: true,
      access: 'admin-session',
      query: EnvironmentQuery,
      body: { contentType: 'multipart/form-data', schema: SigningCertificateUpload },
      responses: {
        201: { description: 'The stored certificate (never its key)', schema: SigningCertificate },
        ...errorResponses(400, 401, 413, 415, 422, 429, 503),
        503: {
          description:
            'A dependency (PostgreSQL or Redis) is unreachable, every upload-check thread is taken (Retry-After), or the service has no SECRETS_KEY to encrypt the key with (code secrets_key_missing)',
          schema: ErrorBody,
        },
      },
    }),
    defineOperation({
      method: 'get',
      path: '/api/v1/signing-certificates',
      operationId: 'listSigningCertificates',
      summary: "The environment's signing certificate (never its key)",
      tag: 'Signing certificates',
      authenticated: true,
      access: 'admin',
      query: EnvironmentQuery,
      responses: { 200: { description: 'Zero or one certificate', schema: SigningCertificateList }, ...errorResponses(401, 422, 429, 503) },
    }),
    defineOperation({
      method: 'delete',
      path: '/api/v1/signing-certificates/{id}',
      operationId: 'deleteSigningCertificate',
      summary: 'Delete a signing certificate and its key; documents can no longer ask to be signed',
      tag: 'Signing certificates',
      authenticated: true,
      access: 'admin',
      query: EnvironmentQuery,
      responses: { 204: { description: 'Deleted' }, ...errorResponses(401, 404, 422, 429, 503) },
    }),
    defineOperation({
      method: 'get',
      path: '/api/v1/members',
      operationId: 'listMembers',
      summary: "The organisation's people and their roles",
      tag: 'Sessions and people',
      authenticated: true,
      access: 'admin-session',
      responses: { 200: { description: 'Every member, oldest first', schema: MemberList }, ...errorResponses(401, 429, 503) },
    }),
    defineOperation({
      method: 'post',
      path: '/api/v1/members',
      operationId: 'createMember',
      summary: 'Add a person; their generated password is shown only here',
      tag: 'Sessions and people',
      authenticated: true,
      access: 'admin-session',
      body: { contentType: 'application/json', schema: CreateMemberBody, name: 'the member' },
      responses: { 201: { description: 'The member, with their password', schema: CreatedMember }, ...errorResponses(400, 401, 409, 413, 415, 422, 429, 503) },
    }),
    defineOperation({
      method: 'delete',
      path: '/api/v1/members/{id}',
      operationId: 'removeMember',
      summary: 'Remove a person from the organisation; their sessions end at once',
      tag: 'Sessions and people',
      authenticated: true,
      access: 'admin-session',
      responses: { 204: { description: 'Removed' }, ...errorResponses(401, 404, 409, 429, 503) },
    }),
  ];
}
