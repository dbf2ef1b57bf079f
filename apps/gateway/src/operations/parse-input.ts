import type { Request, RequestHandler } from 'express';
import { ZodError } from 'zod';
import { unstorableJson, type Operation } from '@docgen/contracts';
import { HttpError } from '../errors';
import { pathParameterNames } from './express-path';

/** The 415 check of a JSON operation (none for the others), worded from the table: "Send the endpoint as application/json". */
export function contentTypeCheck(operation: Operation): RequestHandler[] {
  const body = operation.body;
  if (body?.contentType !== 'application/json') return [];
  return [
    (req, _res, next) => {
      // An operation whose body may be left out (`{"force"?: ...}`) takes a request with no body as {}.
      if (body.optional && !hasBody(req)) return next();
      if (!req.is('application/json')) throw new HttpError('unsupported_media_type', `Send ${body.name} as application/json`);
      next();
    },
  ];
}

/** A JSON body parsed with its schema; a multipart form's fields with the schema minus its `file` (the upload middleware read them). */
export function bodyParser(operation: Operation): (req: Request) => unknown {
  const body = operation.body;
  if (!body) return () => undefined;
  if (body.contentType === 'multipart/form-data') {
    const form = body.schema.omit({ file: true });
    return (req) => form.parse(storable(req.body ?? {}));
  }
  return (req) => body.schema.parse(storable(body.optional && !hasBody(req) ? {} : req.body));
}

const hasBody = (req: Request) => req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';

/**
 * Every body, whatever its operation: text PostgreSQL cannot store (a NUL, half a surrogate
 * pair) is a 422 naming where it is, not a 500 when a row is written (found by the fuzz test),
 * and so is a value nested past MAX_JSON_DEPTH, before anything walks it again.
 */
function storable(value: unknown): unknown {
  const problem = unstorableJson(value);
  if (problem) throw new ZodError([{ code: 'custom', path: problem.path, message: problem.message, input: undefined }]);
  return value;
}

export function queryParser(operation: Operation): (req: Request) => unknown {
  const query = operation.query;
  return query ? (req) => query.parse(req.query) : () => undefined;
}

export function pathParamsReader(operation: Operation): (req: Request) => Record<string, string> {
  const names = pathParameterNames(operation.path);
  // A named segment (:id) is always one string; only wildcards give arrays.
  return (req) => Object.fromEntries(names.map((name) => [name, req.params[name] as string]));
}
