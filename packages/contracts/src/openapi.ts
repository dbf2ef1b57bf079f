import { z } from 'zod';
import { apiSchemas } from './registry';
import { ErrorBody, ERROR_DESCRIPTIONS } from './errors';
import { operations as allOperations, type Operation } from './operations';
import { CSRF_HEADER } from './people';

const ref = (id: string) => `#/components/schemas/${id}`;
type JsonSchema = Record<string, unknown>;

/**
 * A named schema becomes a $ref to its component; an anonymous one is inlined, with the
 * named schemas inside it pointing at their components.
 */
function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const id = apiSchemas.get(schema)?.id;
  if (id && io === 'output') return { $ref: ref(id) };
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', metadata: apiSchemas }) as JsonSchema;
  delete json.$schema;
  delete json.$defs;
  delete json.id;
  return JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
}

function queryParameters(query: z.ZodObject) {
  const json = toSchema(query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema,
  }));
}

function pathParameters(path: string) {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    // `{n}`: a template's version number (API.md §12); every other path parameter is an id.
    schema: name === 'n' ? { type: 'integer', minimum: 1 } : { type: 'string', format: 'uuid' },
  }));
}

const rateLimitHeaders = {
  'RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests allowed per window' },
  'RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in the current window' },
  'RateLimit-Reset': { schema: { type: 'integer' }, description: 'Seconds until a request slot frees up' },
};

const FORBIDDEN = {
  admin: 'This needs the admin role (a member signed in to the web UI); a session request without its X-CSRF-Token',
  'admin-session': 'API keys cannot manage API keys or members; a member lacks the admin role; or no X-CSRF-Token',
  session: 'API keys have no session; or a session request without its X-CSRF-Token',
  anyone: ERROR_DESCRIPTIONS[403],
} as const;

/** Who may send it, the CSRF header and its 403: derived from `access`, never listed by hand. */
function accessParts(op: Operation) {
  const access = op.access ?? 'anyone';
  if (!op.authenticated) return { security: [], parameters: [], responses: {} };
  const sessionOnly = access === 'session' || access === 'admin-session';
  const unsafe = op.method !== 'get';
  const forbidden = unsafe || access !== 'anyone';
  return {
    security: sessionOnly ? [{ sessionCookie: [] }] : undefined,
    parameters: unsafe
      ? [
          {
            name: CSRF_HEADER,
            in: 'header',
            required: false,
            description: 'Required with the session cookie: the csrf_token of GET /api/v1/session.',
            schema: { type: 'string' },
          },
        ]
      : [],
    responses: forbidden ? { 403: { description: FORBIDDEN[access], schema: ErrorBody } } : {},
  };
}

function operationObject(op: Operation) {
  const access = accessParts(op);
  const responses = Object.fromEntries(
    Object.entries({ ...op.responses, ...access.responses }).map(([status, spec]) => {
      const headers: Record<string, unknown> = op.authenticated && status !== '401' ? { ...rateLimitHeaders } : {};
      if (status === '429') headers['Retry-After'] = { schema: { type: 'integer' }, description: 'Seconds to wait' };
      Object.assign(headers, spec.headers);
      const content = spec.schema
        ? { [spec.contentType ?? 'application/json']: { schema: toSchema(spec.schema, 'output') } }
        : spec.contentType
          ? { [spec.contentType]: { schema: { type: 'string', contentMediaType: spec.contentType } } }
          : undefined;
      return [status, { description: spec.description, ...(Object.keys(headers).length ? { headers } : {}), ...(content ? { content } : {}) }];
    }),
  );
  return {
    operationId: op.operationId,
    summary: op.summary,
    tags: [op.tag],
    ...(access.security ? { security: access.security } : {}),
    parameters: [
      ...pathParameters(op.path),
      ...access.parameters,
      ...(op.query ? queryParameters(op.query) : []),
      ...(op.headers ?? []).map((header) => ({ in: 'header', ...header })),
    ],
    ...(op.body
      ? {
          requestBody: {
            required: !('optional' in op.body && op.body.optional),
            content: { [op.body.contentType]: { schema: toSchema(op.body.schema, 'input') } },
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, generated from the same zod schemas the gateway validates with. */
export function buildOpenApiDocument(operations: readonly Operation[] = allOperations, version = '0.1.0') {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    paths[op.path] ??= {};
    paths[op.path]![op.method] = operationObject(op);
  }
  const components = z.toJSONSchema(apiSchemas, { target: 'draft-2020-12', io: 'output', uri: ref, unrepresentable: 'any' });
  const schemas = Object.fromEntries(
    Object.entries(components.schemas).map(([id, schema]) => {
      const { $schema: _drop, id: _id, ...rest } = schema as JsonSchema;
      return [id, rest];
    }),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'docgen',
      version,
      description: 'Document generation: DOCX/HTML templates filled with JSON, rendered to PDF and DOCX.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }, { sessionCookie: [] }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'docgen_session',
          description: 'The web UI session (POST /api/v1/session). Requests other than GET/HEAD also carry X-CSRF-Token.',
        },
      },
      schemas,
    },
  };
}
