import type { z } from 'zod';
import { errorResponses } from './errors';
import { MeResponse } from './me';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

export interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI path template, e.g. /api/v1/templates/{id}. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Requires X-API-Key (and counts against the rate limit). */
  authenticated: boolean;
  query?: z.ZodObject;
  body?: { contentType: string; schema: z.ZodType };
  responses: Record<number, ResponseSpec>;
}

/** The public HTTP API, one entry per operation. Routes validate with these same schemas. */
export const operations: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/me',
    operationId: 'getMe',
    summary: 'The organisation and API key this request authenticates as',
    tag: 'Account',
    authenticated: true,
    responses: { 200: { description: 'The caller', schema: MeResponse }, ...errorResponses(401, 429, 503) },
  },
];
