import { z } from 'zod';
import { apiSchemas } from './registry';

export const ErrorBody = z.object({ detail: z.string().describe('One human sentence saying what went wrong.') }).register(apiSchemas, { id: 'Error' });

export const ValidationErrorBody = z
  .object({
    detail: z.string(),
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
export type ErrorResponse<S extends ErrorStatus> = { description: string; schema: S extends 422 ? typeof ValidationErrorBody : typeof ErrorBody };

export function errorResponses<const S extends ErrorStatus[]>(...statuses: S): { [K in S[number]]: ErrorResponse<K> } {
  return Object.fromEntries(
    statuses.map((status) => [status, { description: ERROR_DESCRIPTIONS[status], schema: status === 422 ? ValidationErrorBody : ErrorBody }]),
  ) as { [K in S[number]]: ErrorResponse<K> };
}
