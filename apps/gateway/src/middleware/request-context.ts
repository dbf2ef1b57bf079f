import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@docgen/observability';

declare module 'http' {
  interface IncomingMessage {
    /** The request id (X-Request-Id). */
    id: string;
    /** The gateway's logger bound to this request's id. */
    log: Logger;
  }
}

const SAFE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** What a route says about its request, written on the request's one completion line. */
interface CompletionNote {
  msg: string;
  fields: Record<string, unknown>;
}
const NOTE = Symbol('completion note');
type NotedResponse = Response & { [NOTE]?: CompletionNote };

/**
 * Gives every request an id (the caller's X-Request-Id when it is sane, else a UUID),
 * echoes it on the response and binds it to every log line written for the request
 * (`req.log`, made only when a route logs), and writes one line when the response ends:
 * `request completed` (`request errored` from 500 on) with the method, URL, status and
 * time, or what the route noted with `noteOnCompletion`.
 */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    req.id = id;
    let log: Logger | undefined;
    Object.defineProperty(req, 'log', { get: () => (log ??= logger.child({ request_id: id })), configurable: true, enumerable: false });
    const started = performance.now();
    const { method, url } = req;
    res.once('close', () => {
      const failed = res.statusCode >= 500;
      const note = (res as NotedResponse)[NOTE];
      const line = {
        request_id: id,
        ...note?.fields,
        req: { id, method, url },
        res: { statusCode: res.statusCode },
        responseTime: Math.round(performance.now() - started),
      };
      if (failed) logger.error(line, 'request errored');
      else logger.info(line, note?.msg ?? 'request completed');
    });
    next();
  };
}

/** What the request did, said on its completion line instead of a line of its own (one log line per request on hot paths). */
export function noteOnCompletion(res: Response, msg: string, fields: Record<string, unknown>): void {
  (res as NotedResponse)[NOTE] = { msg, fields };
}
