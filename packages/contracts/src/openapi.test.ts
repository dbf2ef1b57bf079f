import { buildOpenApiDocument } from './openapi';
import { ERROR_CODES } from './errors';

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument();

  it('is OpenAPI 3.1 with the API key scheme', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
  });

  it('documents success and error responses by reference to named schemas', () => {
    const me = doc.paths['/api/v1/me']!.get as { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
    expect(me.responses['200']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Me' });
    expect(me.responses['401']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(Object.keys(me.responses)).toEqual(expect.arrayContaining(['200', '401', '429', '503']));
  });

  it('emits every registered schema as a component without JSON Schema dialect noise', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Error', 'ValidationError', 'Me']));
    expect(doc.components.schemas.Error).toMatchObject({ type: 'object', required: ['detail', 'code'] });
    expect(JSON.stringify(doc)).not.toContain('$schema');
  });

  it('lists every error code as an enum, and keeps a 429 body to its detail alone', () => {
    const schemas = doc.components.schemas as Record<string, { enum?: string[]; properties?: Record<string, unknown>; additionalProperties?: unknown }>;
    expect(schemas.ErrorCode!.enum).toEqual([...ERROR_CODES]);
    expect(schemas.ErrorCode!.enum).toEqual(
      expect.arrayContaining(['invalid_api_key', 'csrf_failed', 'admin_required', 'session_required', 'template_not_found', 'document_not_found']),
    );
    expect(schemas.Error!.properties!.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
    expect(schemas.ValidationError!.properties!.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
    expect(Object.keys(schemas.RateLimited!.properties!)).toEqual(['detail']);
    expect(schemas.RateLimited!.additionalProperties).toBe(false);
    const me = doc.paths['/api/v1/me']!.get as { responses: Record<string, { content: Record<string, { schema: unknown }> }> };
    expect(me.responses['429']!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/RateLimited' });
  });

  it('documents the idempotency key header and the replay header of POST /documents', () => {
    const create = doc.paths['/api/v1/documents']!.post as {
      parameters: { name: string; in: string }[];
      responses: Record<string, { headers?: Record<string, unknown> }>;
    };
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'X-Idempotency-Key', in: 'header', required: false }));
    expect(Object.keys(create.responses['200']!.headers!)).toContain('Idempotent-Replayed');
    expect(Object.keys(create.responses['202']!.headers!)).not.toContain('Idempotent-Replayed');
  });

  it("documents the session cookie beside the key, the CSRF header and the 403s, derived from each operation's access", () => {
    expect(doc.security).toEqual([{ apiKey: [] }, { sessionCookie: [] }]);
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'docgen_session' });
    type Op = { security?: unknown; parameters: { name: string; in: string }[]; responses: Record<string, unknown> };
    const op = (path: string, method: string) => doc.paths[path]![method] as Op;
    expect(op('/api/v1/session', 'post').security).toEqual([]);
    expect(op('/api/v1/api-keys', 'get').security).toEqual([{ sessionCookie: [] }]);
    expect(op('/api/v1/api-keys', 'get').responses).toHaveProperty('403');
    expect(op('/api/v1/members', 'post').parameters).toContainEqual(expect.objectContaining({ name: 'X-CSRF-Token', in: 'header', required: false }));
    expect(op('/api/v1/members/{id}', 'delete').responses).toHaveProperty('409');
    expect(op('/api/v1/documents', 'post').responses).toHaveProperty('403');
    expect(op('/api/v1/documents', 'get').responses).not.toHaveProperty('403');
    expect(op('/api/v1/documents', 'get').parameters.map((p) => p.name)).not.toContain('X-CSRF-Token');
    expect(op('/api/v1/webhooks', 'get').responses).toHaveProperty('403');
  });

  it('documents the template preview: a PNG, 202 while it is prepared, 409 when it failed, 404', () => {
    const preview = doc.paths['/api/v1/templates/{id}/preview']!.get as {
      responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
    };
    expect(Object.keys(preview.responses['200']!.content!)).toEqual(['image/png']);
    expect(Object.keys(preview.responses['202']!.headers!)).toContain('Retry-After');
    expect(Object.keys(preview.responses)).toEqual(expect.arrayContaining(['200', '202', '401', '404', '409', '429', '503']));
  });
});
