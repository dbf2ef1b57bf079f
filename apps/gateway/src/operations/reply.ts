import type { Response } from 'express';
import type { Operation } from '@docgen/contracts';

/**
 * Writes one of the operation's declared responses. A body that does not match its schema
 * is the server's fault, so it is a 500 rather than a 422 that would blame the caller.
 */
export function replyTo(operation: Operation, res: Response) {
  return (status: number, body?: unknown): void => {
    const spec = operation.responses[status];
    if (!spec) throw new Error(`${operation.operationId} declares no ${status} response`);
    if (!spec.schema) {
      res.status(status).end();
      return;
    }
    const checked = spec.schema.safeParse(body);
    if (!checked.success) throw new Error(`The ${status} response of ${operation.operationId} does not match its schema`, { cause: checked.error });
    res.status(status).json(checked.data);
  };
}
