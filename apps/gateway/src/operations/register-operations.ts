import type { Request, RequestHandler, Response, Router } from 'express';
import { operations, type Operation, type OperationById, type OperationId } from '@docgen/contracts';
import { expressPath } from './express-path';
import type { OperationHandlers } from './operation-handler';
import { bodyParser, contentTypeCheck, pathParamsReader, queryParser } from './parse-input';
import { replyTo } from './reply';

type TableEntry = OperationById<OperationId>;

/** Operations anyone may call (signing in): registered before authentication. */
export type OpenOperationId = Extract<TableEntry, { authenticated: false }>['operationId'];
export type AuthenticatedOperationId = Extract<TableEntry, { authenticated: true }>['operationId'];
type Audience = 'open' | 'authenticated';
type AudienceOperationId<A extends Audience> = A extends 'open' ? OpenOperationId : AuthenticatedOperationId;

// An operation whose `authenticated` is not a literal true or false would belong to neither registration.
const _everyOperationIsOpenOrAuthenticated: [Exclude<OperationId, OpenOperationId | AuthenticatedOperationId>] extends [never] ? true : never = true;

type Handle = (input: {
  params: Record<string, string>;
  query: unknown;
  body: unknown;
  reply: ReturnType<typeof replyTo>;
  req: Request;
  res: Response;
}) => void | Promise<void>;

/** A registration as this module runs it: the typed input of each handler is built from its operation's schemas below. */
type UntypedRegistration = Handle | { handle: Handle; before?: RequestHandler[]; queryBeforeBody?: true };

interface Registration {
  handle: Handle;
  before: RequestHandler[];
  queryBeforeBody: boolean;
}

function normalise(registration: UntypedRegistration): Registration {
  const options = typeof registration === 'function' ? { handle: registration } : registration;
  return { handle: options.handle, before: options.before ?? [], queryBeforeBody: options.queryBeforeBody === true };
}

/**
 * The route's chain: the content-type check (415 before anything is parsed), the
 * registration's own middleware, then the path parameters, body and query parsed with the
 * operation's schemas (query first where the route always checked it first) for the handler.
 */
function operationMiddleware(operation: Operation, registration: Registration): RequestHandler[] {
  const readParams = pathParamsReader(operation);
  const parseBody = bodyParser(operation);
  const parseQuery = queryParser(operation);
  const earlyQueries = new WeakMap<Request, unknown>();
  const parseQueryEarly: RequestHandler = (req, _res, next) => {
    earlyQueries.set(req, parseQuery(req));
    next();
  };
  const handle: RequestHandler = async (req, res) => {
    const body = parseBody(req);
    const query = registration.queryBeforeBody ? earlyQueries.get(req) : parseQuery(req);
    await registration.handle({ params: readParams(req), query, body, reply: replyTo(operation, res), req, res });
  };
  return [...(registration.queryBeforeBody ? [parseQueryEarly] : []), ...contentTypeCheck(operation), ...registration.before, handle];
}

/**
 * Registers on `router` (mounted at API_PREFIX) every operation of the table meant for it:
 * the open ones before authentication, the authenticated ones after it. `handlers` must
 * hold exactly those operations, one registration each: the types refuse a missing or
 * unknown operationId, and so does this function at start-up.
 */
export function registerOperations<A extends Audience>(router: Router, audience: A, handlers: OperationHandlers<AudienceOperationId<A>>): void {
  const meant: readonly Operation[] = operations.filter((operation) => operation.authenticated === (audience === 'authenticated'));
  // Where the compile-time types end: each handler gets the input operationMiddleware parses with its own operation's schemas.
  const registrations = handlers as unknown as Partial<Record<string, UntypedRegistration>>;
  const unknown = Object.keys(registrations).filter((id) => !meant.some((operation) => operation.operationId === id));
  if (unknown.length) throw new Error(`No ${audience} operation in the table is called ${unknown.join(', ')}`);
  for (const operation of meant) {
    const registration = registrations[operation.operationId];
    if (!registration) throw new Error(`The ${audience} operation ${operation.operationId} has no handler`);
    router[operation.method](expressPath(operation.path), ...operationMiddleware(operation, normalise(registration)));
  }
}
