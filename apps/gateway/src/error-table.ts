import type { ErrorCode } from '@docgen/contracts';

/**
 * The one table from an error code to its HTTP status (and its sentence, where there is only
 * one). Domain packages throw codes; `errorHandler` answers with this. A key that is not a
 * public code names the public one in `code`; a 429 answers with `detail` alone (API.md §9).
 */
export const ERROR_TABLE = {
  bad_request: { status: 400 },
  invalid_api_key: { status: 401, detail: 'Invalid or missing API key' },
  invalid_credentials: { status: 401, detail: 'Invalid email or password' },
  csrf_failed: { status: 403, detail: 'Missing or invalid CSRF token' },
  admin_required: { status: 403, detail: 'This needs the admin role' },
  session_required: { status: 403 },
  not_found: { status: 404, detail: 'Not found' },
  template_not_found: { status: 404, detail: 'Template not found' },
  document_not_found: { status: 404, detail: 'Document not found' },
  bulk_job_not_found: { status: 404, detail: 'Bulk job not found' },
  webhook_not_found: { status: 404, detail: 'Webhook endpoint not found' },
  version_not_found: { status: 404, detail: 'Template version not found' },
  api_key_not_found: { status: 404, detail: 'API key not found' },
  member_not_found: { status: 404, detail: 'Member not found' },
  signing_certificate_not_found: { status: 404, detail: 'Signing certificate not found' },
  file_not_found: { status: 404 },
  not_ready: { status: 409 },
  no_preview: { status: 409 },
  idempotency_conflict: { status: 409 },
  breaking_change: { status: 409 },
  last_admin: { status: 409, detail: 'This is the last admin of the organisation; add another admin before removing them' },
  member_conflict: { status: 409 },
  purged: { status: 410 },
  body_too_large: { status: 413 },
  unsupported_media_type: { status: 415 },
  validation_failed: { status: 422 },
  template_invalid: { status: 422 },
  spreadsheet_invalid: { status: 422 },
  idempotency_key_reused: { status: 422 },
  merge_source_invalid: { status: 422 },
  wrong_password: { status: 422 },
  signing_certificate_invalid: { status: 422 },
  rate_limited: { status: 429 },
  too_many_in_progress: { status: 429 },
  internal_error: { status: 500, detail: 'Internal server error' },
  dependency_unavailable: { status: 503 },
  queue_unavailable: { status: 503, code: 'dependency_unavailable', detail: 'Service unavailable: redis is unreachable. Please try again shortly.' },
  secrets_key_missing: { status: 503 },
  key_lookups_unreachable: { status: 503, code: 'dependency_unavailable' },
  stored_file_missing: {
    status: 503,
    detail: 'A stored file is missing from storage; check the storage settings (STORAGE_DIR must be a shared volume; S3_* the same bucket for every service)',
  },
} as const satisfies Record<string, { status: number; detail?: string; code?: ErrorCode }> & Record<ErrorCode, { status: number; detail?: string }>;

export type TableCode = keyof typeof ERROR_TABLE;

/** Codes with one fixed sentence: throwing them needs no detail. */
export type FixedCode = { [C in TableCode]: (typeof ERROR_TABLE)[C] extends { detail: string } ? C : never }[TableCode];

export const isTableCode = (code: unknown): code is TableCode => typeof code === 'string' && Object.hasOwn(ERROR_TABLE, code);

/** The status, the public code (none for a 429) and the sentence of a code. */
export function lookUp(code: TableCode, detail?: string): { status: number; code: ErrorCode | undefined; detail: string } {
  const entry: { status: number; detail?: string; code?: ErrorCode } = ERROR_TABLE[code];
  const publicCode = entry.status === 429 ? undefined : (entry.code ?? (code as ErrorCode));
  return { status: entry.status, code: publicCode, detail: entry.detail ?? detail ?? code };
}
