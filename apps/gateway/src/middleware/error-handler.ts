import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { isDatabaseUnavailable } from '@docgen/db';
import { DomainError } from '@docgen/contracts';
import { FileNotFoundError } from '@docgen/storage';
import { TemplateError, type TemplateErrorKind } from '@docgen/templating';
import { isTableCode } from '../error-table';
import { UntrustedWorkBusyError } from '@docgen/untrusted-work';
import { HttpError, dependencyDown } from '../errors';

interface BodyParserError {
  type?: string;
  status?: number;
}

/** Body parser failures carry a `type`; map them to the contract's statuses. */
function fromBodyParser(error: BodyParserError): HttpError | undefined {
  switch (error.type) {
    case 'entity.too.large':
      return new HttpError('body_too_large', 'Request body too large');
    case 'entity.parse.failed':
      return new HttpError('bad_request', 'Request body is not valid JSON');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new HttpError('unsupported_media_type', 'Unsupported body encoding; send UTF-8 JSON');
    case 'request.aborted':
      return new HttpError('bad_request', 'Request aborted by the client');
    default:
      return undefined;
  }
}

type Issue = { path: PropertyKey[]; message: string; code?: string; errors?: Issue[][] };

/**
 * A value that fits none of a union's shapes: when only one shape is of the value's kind
 * (a format object vs a format string), its own problems say more than "Invalid input".
 */
function unwrapUnion(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || !issue.errors) return [issue];
  const sameKind = issue.errors.filter((branch) => !(branch.length === 1 && branch[0]!.code === 'invalid_type' && branch[0]!.path.length === 0));
  if (sameKind.length !== 1) return [issue];
  return sameKind[0]!.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }));
}

const TOO_MANY_IN_PROGRESS_RETRY_S = 10;

/** The domains' errors carry a code; the error table gives its status. */
function fromDomainError(error: DomainError): HttpError | undefined {
  if (!isTableCode(error.code)) return undefined;
  // A 429 keeps the seed's body (`detail` only); documents in progress take seconds each.
  const headers = error.code === 'too_many_in_progress' ? { headers: { 'Retry-After': String(TOO_MANY_IN_PROGRESS_RETRY_S) } } : {};
  return new HttpError(error.code, error.message, { ...(error.problems.length ? { errors: error.problems } : {}), ...headers });
}

const TEMPLATE_CODE_BY_KIND = {
  unsupported: 'unsupported_media_type',
  invalid: 'template_invalid',
  too_large: 'body_too_large',
  syntax: 'template_invalid',
} as const satisfies Record<TemplateErrorKind, string>;

/** An uploaded file that cannot become a template: every syntax problem is about the file. */
const fromTemplateError = (error: TemplateError) =>
  new HttpError(TEMPLATE_CODE_BY_KIND[error.kind], error.message, {
    ...(error.issues.length ? { errors: error.issues.map((issue) => ({ path: 'file', ...issue })) } : {}),
  });

function toHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (error instanceof DomainError) return fromDomainError(error);
  if (error instanceof TemplateError) return fromTemplateError(error);
  if (error instanceof ZodError) {
    const errors = error.issues.flatMap(unwrapUnion).map((issue) => ({ path: issue.path.map(String).join('.') || 'body', message: issue.message }));
    const first = errors[0]!;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? 's' : ''})` : '';
    return new HttpError('validation_failed', `Invalid ${first.path}: ${first.message}${more}`, { errors });
  }
  // Express's router cannot decode a path parameter such as /templates/%E0.
  if (error instanceof URIError) return new HttpError('bad_request', 'The URL holds a malformed percent-encoding');
  if (isDatabaseUnavailable(error)) return dependencyDown('postgresql');
  // An organisation over its share is told to slow down (429); a gateway with every thread busy is unavailable (503).
  if (error instanceof UntrustedWorkBusyError)
    return new HttpError(error.scope === 'organization' ? 'rate_limited' : 'dependency_unavailable', error.message, { headers: { 'Retry-After': '2' } });
  if (error instanceof FileNotFoundError) return new HttpError('stored_file_missing');
  if (error && typeof error === 'object') return fromBodyParser(error as BodyParserError);
  return undefined;
}

/** The one place that writes error responses: `{"detail": ..., "code": ...}` (a 429: `detail` alone), never a stack trace. */
export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  if (res.headersSent) {
    // A stream failed mid-response: the only honest signal left is to cut the connection.
    req.log.error({ err: error }, 'response failed after headers were sent');
    res.destroy();
    return;
  }
  const httpError = toHttpError(error);
  if (!httpError) {
    req.log.error({ err: error }, 'unhandled error');
    const internal = new HttpError('internal_error');
    res.status(internal.status).json({ detail: internal.detail, code: internal.code });
    return;
  }
  if (httpError.status >= 500) req.log.warn({ status: httpError.status, detail: httpError.detail }, 'request failed');
  for (const [name, value] of Object.entries(httpError.extra.headers ?? {})) res.setHeader(name, value);
  res.status(httpError.status).json({
    detail: httpError.detail,
    ...(httpError.code ? { code: httpError.code } : {}),
    ...(httpError.extra.errors ? { errors: httpError.extra.errors } : {}),
  });
};

export const notFound: RequestHandler = () => {
  throw new HttpError('not_found');
};
