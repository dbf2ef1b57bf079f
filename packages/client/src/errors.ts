import type { components } from './generated/openapi.js';

export type Document = components['schemas']['Document'];
export type FieldError = NonNullable<components['schemas']['ValidationError']['errors']>[number];
/** The stable code of an error body (docs/errors.md); branch on it, never on the sentence. */
export type ErrorCode = components['schemas']['ErrorCode'];

/** Every error this client throws on purpose. */
export class DocgenError extends Error {
  override name = 'DocgenError';
}

/** The service answered with an error status: `detail` is its sentence, `code` its stable code (none on a 429), `errors` each validation problem. */
export class DocgenApiError extends DocgenError {
  override name = 'DocgenApiError';
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors: FieldError[] = [],
    readonly requestId: string | null = null,
    readonly code: ErrorCode | null = null,
  ) {
    super(`HTTP ${status}: ${detail}`);
  }
}

/** The service could not be reached (after retries, when the request could be retried). */
export class DocgenConnectionError extends DocgenError {
  override name = 'DocgenConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The document ended `failed`; `errorMessage` says what to fix in the template or input. */
export class DocumentFailedError extends DocgenError {
  override name = 'DocumentFailedError';
  readonly errorMessage: string;
  constructor(readonly document: Document) {
    super(`Document ${document.id} failed: ${document.error_message ?? 'no reason given'}`);
    this.errorMessage = document.error_message ?? '';
  }
}

/** A wait passed its deadline before the document (or bulk job) finished. */
export class DocgenTimeoutError extends DocgenError {
  override name = 'DocgenTimeoutError';
}

/** A webhook delivery whose headers, timestamp or signature do not check out. */
export class WebhookVerificationError extends DocgenError {
  override name = 'WebhookVerificationError';
}

/** The error of a response openapi-fetch has read: its JSON body (or text) into a DocgenApiError. */
export function apiErrorFrom(response: Response, body: unknown): DocgenApiError {
  const json = (typeof body === 'object' && body !== null ? body : {}) as { detail?: unknown; errors?: unknown; code?: unknown };
  const text = typeof body === 'string' ? body.slice(0, 200) : '';
  const detail = typeof json.detail === 'string' ? json.detail : `${response.statusText || 'Error'}${text ? `: ${text}` : ''}`;
  const errors = Array.isArray(json.errors) ? (json.errors as FieldError[]) : [];
  const code = typeof json.code === 'string' ? (json.code as ErrorCode) : null;
  return new DocgenApiError(response.status, detail, errors, response.headers.get('x-request-id'), code);
}
