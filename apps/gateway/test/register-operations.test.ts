import express, { type RequestHandler, type Router } from 'express';
import request from 'supertest';
import { operations, type Operation } from '@docgen/contracts';
import { createLogger } from '@docgen/observability';
import { errorHandler } from '../src/middleware/error-handler';
import { requestContext } from '../src/middleware/request-context';
import { API_PREFIX, expressPath } from '../src/operations/express-path';
import type { HandlerRegistration, OperationHandler, OperationHandlers } from '../src/operations/operation-handler';
import { registerOperations, type AuthenticatedOperationId } from '../src/operations/register-operations';
import { seedOrganization, type SeededOrganization } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

/** The 415 of every JSON operation, written out as API.md and the clients know them. */
const JSON_415: Record<string, string> = {
  signIn: 'Send the email and password as application/json',
  changePassword: 'Send the passwords as application/json',
  createApiKey: 'Send the key as application/json',
  createMember: 'Send the member as application/json',
  updateTemplate: 'Send the template changes as application/json',
  updateTemplateVariables: 'Send the variables as application/json',
  createDocument: 'Send the request as application/json',
  createMerge: 'Send the merge as application/json',
  createWebhook: 'Send the endpoint as application/json',
  renderTemplatePreview: 'Send the preview request as application/json',
  publishTemplateVersion: 'Send the publish options as application/json',
  promoteTemplate: 'Send the promotion options as application/json',
};

const ID = '0b6f1a57-3a7e-4c2a-9a40-6d8e52a7e0a1';
const concrete = (op: Operation) => op.path.replace('{id}', ID);
const isJson = (op: Operation) => op.body?.contentType === 'application/json';

interface Layer {
  rawPath?: unknown;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** Every route of an Express router as "METHOD /full/path", and whether it sits under API_PREFIX. */
function routesOf(stack: Layer[], prefix = ''): { route: string; underApi: boolean }[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const methods = Object.keys(layer.route.methods).filter((method) => method !== '_all');
      return methods.map((method) => ({ route: `${method.toUpperCase()} ${prefix}${layer.route!.path}`, underApi: prefix.startsWith(API_PREFIX) }));
    }
    if (!layer.handle.stack) return [];
    const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
    return routesOf(layer.handle.stack, prefix + mount);
  });
}

const tableRoute = (op: Operation) => `${op.method.toUpperCase()} ${API_PREFIX}${expressPath(op.path)}`;

describe('the gateway registers its routes from the operations table', () => {
  it('derives the Express path from the OpenAPI path', () => {
    expect(expressPath('/api/v1/webhooks/{id}/test')).toBe('/webhooks/:id/test');
    expect(expressPath('/api/v1/me')).toBe('/me');
    expect(() => expressPath('/healthz')).toThrow('/healthz is not under /api/v1');
  });

  describe('in the gateway app', () => {
    let harness: GatewayHarness;
    let org: SeededOrganization;
    beforeAll(async () => {
      harness = await startGatewayHarness();
      org = await seedOrganization(harness.database.db, { rateLimitPerMinute: 1000 });
    });
    afterAll(() => harness.close());

    it('registers every operation exactly once at its path and method, and nothing else under /api/v1', () => {
      const routes = routesOf((harness.app.router as unknown as { stack: Layer[] }).stack);
      for (const op of operations) {
        expect({ op: op.operationId, times: routes.filter(({ route }) => route === tableRoute(op)).length }).toEqual({ op: op.operationId, times: 1 });
      }
      const apiRoutes = routes.filter(({ underApi }) => underApi).map(({ route }) => route);
      expect(apiRoutes.sort()).toEqual(operations.map(tableRoute).sort());
    });

    it('keeps the order of checks each route always had', async () => {
      const api = () => request(harness.app);
      // POST /documents: content type, then body, then query.
      const notJson = await api().post('/api/v1/documents?is_uat=maybe').set('X-API-Key', org.apiKey).set('Content-Type', 'text/plain').send('x').expect(415);
      expect(notJson.body).toEqual({ detail: 'Send the request as application/json', code: 'unsupported_media_type' });
      const badBody = await api().post('/api/v1/documents?is_uat=maybe').set('X-API-Key', org.apiKey).send({}).expect(422);
      expect(badBody.body.detail).toMatch(/^Invalid template_id/);
      // PATCH /templates/{id} and /templates/{id}/variables: query first, then content type.
      for (const path of [`/api/v1/templates/${ID}?is_uat=maybe`, `/api/v1/templates/${ID}/variables?is_uat=maybe`]) {
        const badQuery = await api().patch(path).set('X-API-Key', org.apiKey).set('Content-Type', 'text/plain').send('x').expect(422);
        expect(badQuery.body.detail).toBe('Invalid is_uat: must be true or false');
      }
    });
  });
});

describe('registered operations parse their input with the table', () => {
  /** A handler that answers with what it was given, for any operation. */
  const echo =
    (operationId: string) =>
    ({ params, query, body, res }: { params: unknown; query: unknown; body: unknown; res: express.Response }) => {
      res.json({ operationId, params, query, body });
    };
  /** Stands in for singleFileUpload: the form fields a multipart body would carry. */
  const fakeUpload: RequestHandler = (req, _res, next) => {
    req.body = JSON.parse(req.get('x-form') ?? '{}');
    next();
  };

  const stubs = Object.fromEntries(
    operations
      .filter((op) => op.authenticated)
      .map((op) => [
        op.operationId,
        op.body?.contentType === 'multipart/form-data' ? { before: [fakeUpload], handle: echo(op.operationId) } : echo(op.operationId),
      ]),
  ) as unknown as OperationHandlers<AuthenticatedOperationId>;

  const me = { organization: { id: ID, name: 'Acme', rate_limit_per_minute: 60 }, api_key: null, user: null };
  const app = express();
  app.use(requestContext(createLogger('register-operations-test', 'silent')));
  const open = express.Router();
  registerOperations(open, 'open', { signIn: { before: [express.json()], handle: echo('signIn') } });
  const authenticated = express.Router();
  registerOperations(authenticated, 'authenticated', {
    ...stubs,
    getMe: ({ reply }) => reply(200, { ...me, unexpected: 'dropped by the schema' } as typeof me),
    getSession: ({ reply }) => reply(200, { csrf_token: 1 } as never),
    deleteTemplate: ({ reply }) => reply(204),
    updateTemplate: { queryBeforeBody: true, handle: echo('updateTemplate') },
  });
  const api = express.Router();
  api.use(open);
  api.use(express.json());
  api.use(authenticated);
  app.use(API_PREFIX, api);
  app.use(errorHandler);

  const send = (op: Operation, url = concrete(op)) => request(app)[op.method](url);

  it('reaches the handler of every operation without a body, with its path parameters', async () => {
    for (const op of operations.filter((candidate) => !candidate.body && !['getMe', 'getSession', 'deleteTemplate'].includes(candidate.operationId))) {
      const res = await send(op);
      expect({ op: op.operationId, status: res.status, body: res.body }).toMatchObject({
        op: op.operationId,
        status: 200,
        body: { operationId: op.operationId, params: op.path.includes('{id}') ? { id: ID } : {} },
      });
    }
  });

  it('answers a non-JSON body on every JSON operation with 415 in its own words', async () => {
    const jsonOperations = operations.filter(isJson);
    expect(jsonOperations.map((op) => op.operationId).sort()).toEqual(Object.keys(JSON_415).sort());
    for (const op of jsonOperations) {
      const res = await send(op).set('Content-Type', 'text/plain').send('hello');
      expect({ op: op.operationId, status: res.status, body: res.body }).toEqual({
        op: op.operationId,
        status: 415,
        body: { detail: JSON_415[op.operationId], code: 'unsupported_media_type' },
      });
    }
  });

  it("parses the query with the operation's schema: defaults and transforms applied, a bad value a 422", async () => {
    const ok = await request(app).get('/api/v1/documents?status=ready&is_uat=1').expect(200);
    expect(ok.body.query).toEqual({ status: 'ready', is_uat: true, limit: 50 });

    const bad = await request(app).get('/api/v1/documents?limit=abc').expect(422);
    expect(bad.body).toEqual({
      detail: 'Invalid limit: must be a whole number from 1 to 100',
      code: 'validation_failed',
      errors: [{ path: 'limit', message: 'must be a whole number from 1 to 100' }],
    });
  });

  it('parses a JSON body with its schema, and refuses one that does not match', async () => {
    const ok = await request(app).post('/api/v1/webhooks').send({ url: 'https://hooks.example.com/docgen', is_uat: true }).expect(200);
    expect(ok.body).toMatchObject({ operationId: 'createWebhook', body: { url: 'https://hooks.example.com/docgen', is_uat: true }, query: { is_uat: false } });

    const bad = await request(app).post('/api/v1/webhooks').send({ url: 'not a url' }).expect(422);
    expect(bad.body).toEqual({ detail: 'Invalid url: must be a URL', code: 'validation_failed', errors: [{ path: 'url', message: 'must be a URL' }] });
  });

  it('parses the form fields of a multipart operation without its file', async () => {
    const ok = await request(app)
      .post('/api/v1/templates')
      .set('x-form', JSON.stringify({ name: '  Invoice  ', is_uat: 'true' }))
      .expect(200);
    expect(ok.body.body).toEqual({ name: 'Invoice', is_uat: true });
  });

  it('checks the content type, then the body, then the query; or the query first where a registration asks', async () => {
    const notJson = await request(app).post('/api/v1/documents?is_uat=maybe').set('Content-Type', 'text/plain').send('x').expect(415);
    expect(notJson.body.detail).toBe('Send the request as application/json');
    const badBody = await request(app).post('/api/v1/documents?is_uat=maybe').send({}).expect(422);
    expect(badBody.body.detail).toMatch(/^Invalid template_id/);

    const queryFirst = await request(app).patch(`/api/v1/templates/${ID}?is_uat=maybe`).set('Content-Type', 'text/plain').send('x').expect(422);
    expect(queryFirst.body.detail).toBe('Invalid is_uat: must be true or false');
    const parsed = await request(app).patch(`/api/v1/templates/${ID}?is_uat=true`).send({ locale: 'de-de' }).expect(200);
    expect(parsed.body).toMatchObject({ query: { is_uat: true }, body: { locale: 'de-de' } });
  });

  it('replies with the declared response, its body passed through its schema', async () => {
    const res = await request(app).get('/api/v1/me').expect(200);
    expect(res.body).toEqual(me);
    await request(app).delete(`/api/v1/templates/${ID}`).expect(204);
    // A body that breaks its own schema is the server's fault, never the caller's 422.
    const broken = await request(app).get('/api/v1/session').expect(500);
    expect(broken.body).toEqual({ detail: 'Internal server error', code: 'internal_error' });
  });

  it('refuses at start-up a handler record that misses an operation or names one outside its registration', () => {
    expect(() => registerOperations(express.Router(), 'open', {} as never)).toThrow('The open operation signIn has no handler');
    expect(() => registerOperations(express.Router(), 'open', { signIn: echo('signIn'), getMe: echo('getMe') } as never)).toThrow(
      'No open operation in the table is called getMe',
    );
  });
});

// Compile-time guarantees, checked by `tsc` (pnpm typecheck) and never run.
function _typeGuarantees(router: Router, handler: OperationHandler<'signIn'>): void {
  // @ts-expect-error an operation without a handler
  registerOperations(router, 'open', {});
  // @ts-expect-error a handler that names no operation
  registerOperations(router, 'open', { signIn: handler, signUp: handler });

  const deleteWebhook: OperationHandler<'deleteWebhook'> = ({ params, query, reply }) => {
    const id: string = params.id;
    const isUat: boolean = query.is_uat;
    // @ts-expect-error the path has no such parameter
    void params.name;
    // @ts-expect-error deleteWebhook declares no 200
    reply(200, {});
    reply(204);
    void [id, isUat];
  };
  const downloadDocument: OperationHandler<'downloadDocument'> = ({ reply }) => {
    // @ts-expect-error a file is streamed through res (sendFile), not replied
    reply(200);
  };
  const createWebhook: OperationHandler<'createWebhook'> = ({ body, reply }) => {
    const url: string = body.url;
    // @ts-expect-error the 201 body must be a CreatedWebhookEndpoint
    reply(201, { url });
  };
  // @ts-expect-error a multipart operation needs its upload middleware before parsing
  const createTemplate: HandlerRegistration<'createTemplate'> = () => undefined;
  void [deleteWebhook, downloadDocument, createWebhook, createTemplate];
}
