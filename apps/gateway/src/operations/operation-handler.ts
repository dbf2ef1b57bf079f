import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { OperationById, OperationId } from '@docgen/contracts';

type PathParameterName<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParameterName<Rest> : never;

/** The parameters of an OpenAPI path template: '/webhooks/{id}/test' → { id: string }. */
export type PathParams<Path extends string> = { [Name in PathParameterName<Path>]: string };

type QueryOf<Op> = Op extends { query: infer Query extends z.ZodType } ? z.output<Query> : undefined;

/** A JSON body as parsed; a multipart body's form fields (the file itself is req.file). */
type BodyOf<Op> = Op extends { body: { contentType: 'multipart/form-data'; schema: infer Form extends z.ZodType } }
  ? Omit<z.output<Form>, 'file'>
  : Op extends { body: { schema: infer Body extends z.ZodType } }
    ? z.output<Body>
    : undefined;

/** A declared response with a schema takes its body; one without a body takes none; a file is streamed through `res`. */
type ReplyArguments<Spec> = Spec extends { schema: infer Body extends z.ZodType } ? [body: z.input<Body>] : Spec extends { contentType: string } ? never : [];

/** Answers with a status the operation declares, the body checked against that response's schema. */
export type Reply<Op extends { responses: object }> = <Status extends keyof Op['responses'] & number>(
  status: Status,
  ...body: ReplyArguments<Op['responses'][Status]>
) => void;

/** What a handler receives: its path parameters, query and body already parsed with the operation's schemas. */
export interface OperationInput<Id extends OperationId> {
  params: PathParams<OperationById<Id>['path']>;
  query: QueryOf<OperationById<Id>>;
  body: BodyOf<OperationById<Id>>;
  reply: Reply<OperationById<Id>>;
  req: Request;
  res: Response;
}

export type OperationHandler<Id extends OperationId> = (input: OperationInput<Id>) => void | Promise<void>;

interface HandlerOptions<Id extends OperationId> {
  handle: OperationHandler<Id>;
  /** Middleware that runs after the content-type check and before parsing (e.g. a per-route body parser). */
  before?: RequestHandler[];
  /** Parse the query before the content type and body, for routes that always did: a request wrong in both keeps its old error. */
  queryBeforeBody?: true;
}

/** A multipart operation has nothing to parse without its upload middleware (singleFileUpload). */
type MultipartHandler<Id extends OperationId> = { handle: OperationHandler<Id>; before: [RequestHandler, ...RequestHandler[]] };

export type HandlerRegistration<Id extends OperationId> =
  OperationById<Id> extends { body: { contentType: 'multipart/form-data' } } ? MultipartHandler<Id> : OperationHandler<Id> | HandlerOptions<Id>;

/** One registration per operation, keyed by operationId. */
export type OperationHandlers<Id extends OperationId> = { [K in Id]: HandlerRegistration<K> };
