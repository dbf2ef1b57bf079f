import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { isDatabaseUnavailable } from '@docgen/db';
import { DocumentError } from '@docgen/documents';
import { FileNotFoundError } from '@docgen/storage';
import { HttpError, dependencyDown } from '../errors';

interface BodyParserError {
  type?: string;
  status?: number;
}

/** Body parser failures carry a `type`; map them to the contract's statuses. */
function fromBodyParser(error: BodyParserError): HttpError | undefined {
  switch (error.type) {
    case 'entity.too.large':
      return new HttpError(413, 'Request body too large');
    case 'entity.parse.failed':
      return new HttpError(400, 'Request body is not valid JSON');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new HttpError(415, 'Unsupported body encoding; send UTF-8 JSON');
    case 'request.aborted':
      return new HttpError(400, 'Request aborted by the client');
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

/** The domain's errors carry a code; their statuses are the gateway's to choose. */
function fromDocumentError(error: DocumentError): HttpError {
  switch (error.code) {
    case 'template_not_found':
      return new HttpError(404, error.message);
    case 'idempotency_key_reused':
      return new HttpError(422, error.message, { errors: error.problems });
    case 'queue_unavailable':
      return dependencyDown('redis');
  }
}

function toHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (error instanceof DocumentError) return fromDocumentError(error);
  if (error instanceof ZodError) {
    const errors = error.issues.flatMap(unwrapUnion).map((issue) => ({ path: issue.path.map(String).join('.') || 'body', message: issue.message }));
    const first = errors[0]!;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? 's' : ''})` : '';
    return new HttpError(422, `Invalid ${first.path}: ${first.message}${more}`, { errors });
  }
  // Express's router cannot decode a path parameter such as /templates/%E0.
  if (error instanceof URIError) return new HttpError(400, 'The URL holds a malformed percent-encoding');
  if (isDatabaseUnavailable(error)) return dependencyDown('postgresql');
  if (error instanceof FileNotFoundError)
    return new HttpError(
      503,
      'A stored file is missing from storage; check the storage settings (STORAGE_DIR must be a shared volume; S3_* the same bucket for every service)',
    );
  if (error && typeof error === 'object') return fromBodyParser(error as BodyParserError);
  return undefined;
}

/** The one place that writes error responses: `{"detail": ...}`, never a stack trace. */
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
    res.status(500).json({ detail: 'Internal server error' });
    return;
  }
  if (httpError.status >= 500) req.log.warn({ status: httpError.status, detail: httpError.detail }, 'request failed');
  for (const [name, value] of Object.entries(httpError.extra.headers ?? {})) res.setHeader(name, value);
  res.status(httpError.status).json({
    detail: httpError.detail,
    ...(httpError.extra.errors ? { errors: httpError.extra.errors } : {}),
  });
};

export const notFound: RequestHandler = () => {
  throw new HttpError(404, 'Not found');
};
