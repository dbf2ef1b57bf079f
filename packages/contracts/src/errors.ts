import { z } from 'zod';
import { apiSchemas } from './registry';

/**
 * Every code an error body can carry (API.md §9): stable, snake_case, for programs to branch
 * on (never on the sentence). The gateway's error table gives each its status; the docs list
 * them in docs/errors.md. A 429 carries none.
 */
export const ERROR_CODES = [
  'bad_request',
  'invalid_api_key',
  'invalid_credentials',
  'csrf_failed',
  'admin_required',
  'session_required',
  'not_found',
  'template_not_found',
  'document_not_found',
  'bulk_job_not_found',
  'webhook_not_found',
  'version_not_found',
  'api_key_not_found',
  'member_not_found',
  'signing_certificate_not_found',
  'file_not_found',
  'not_ready',
  'no_preview',
  'idempotency_conflict',
  'breaking_change',
  'last_admin',
  'member_conflict',
  'purged',
  'body_too_large',
  'unsupported_media_type',
  'validation_failed',
  'template_invalid',
  'spreadsheet_invalid',
  'idempotency_key_reused',
  'merge_source_invalid',
  'wrong_password',
  'signing_certificate_invalid',
  'internal_error',
  'dependency_unavailable',
  'stored_file_missing',
  'secrets_key_missing',
] as const;

export const ErrorCode = z.enum(ERROR_CODES).describe('Stable machine-readable error code; see docs/errors.md.').register(apiSchemas, { id: 'ErrorCode' });
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorBody = z
  .object({ detail: z.string().describe('One human sentence saying what went wrong.'), code: ErrorCode })
  .register(apiSchemas, { id: 'Error' });

/** Not an error: a sentence telling the caller to come back (the preview's 202). */
export const MessageBody = z.object({ detail: z.string() }).register(apiSchemas, { id: 'Message' });

/** A 429 keeps exactly the body it always had: one string field `detail`, no code. */
export const RateLimitedBody = z.strictObject({ detail: z.string() }).register(apiSchemas, { id: 'RateLimited' });

export const ValidationErrorBody = z
  .object({
    detail: z.string(),
    code: ErrorCode,
    errors: z
      .array(
        z.object({
          path: z.string().describe('Where the problem is, e.g. "input_json.items" or "file".'),
          message: z.string(),
          tag: z.string().optional().describe('Template syntax errors: the tag as written, e.g. "{#items}".'),
          part: z.string().optional().describe('Template syntax errors: body, header, footer, footnotes or endnotes.'),
        }),
      )
      .optional(),
  })
  .register(apiSchemas, { id: 'ValidationError' });

export const ERROR_DESCRIPTIONS = {
  400: 'Malformed request (e.g. body is not valid JSON)',
  401: 'X-API-Key missing, not svc_-prefixed, unknown, revoked or expired, and no live session cookie',
  403: 'The credential or role may not do this, or a session request lacks its X-CSRF-Token',
  404: 'Unknown id, or a resource of another organisation or environment',
  409: 'The resource is not in a state that allows this',
  410: 'Removed by retention (RETENTION_DAYS): the record stays, the file is gone',
  413: 'Request body too large',
  415: 'Unsupported content type',
  422: 'Validation failed; `errors` lists each problem',
  429: 'Organisation over its rate limit (see Retry-After)',
  503: 'A dependency (PostgreSQL or Redis) is unreachable',
} as const;

export type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

/** An error response as the operations table declares it: 422 lists each problem, the rest say one thing. */
export type ErrorResponse<S extends ErrorStatus> = {
  description: string;
  schema: S extends 422 ? typeof ValidationErrorBody : S extends 429 ? typeof RateLimitedBody : typeof ErrorBody;
};

const errorSchemaFor = (status: ErrorStatus) => (status === 422 ? ValidationErrorBody : status === 429 ? RateLimitedBody : ErrorBody);

export function errorResponses<const S extends ErrorStatus[]>(...statuses: S): { [K in S[number]]: ErrorResponse<K> } {
  return Object.fromEntries(statuses.map((status) => [status, { description: ERROR_DESCRIPTIONS[status], schema: errorSchemaFor(status) }])) as {
    [K in S[number]]: ErrorResponse<K>;
  };
}
