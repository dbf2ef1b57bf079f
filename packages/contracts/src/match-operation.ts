import { operations, type Operation } from './operations';

const patterns = operations.map((op) => ({
  op,
  method: op.method.toUpperCase(),
  // Case-insensitive like Express's router: /API-KEYS reaches the /api-keys handlers, so it
  // must meet their access rule too.
  regex: new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}/?$`, 'i'),
}));

/** The operation a request path (without its query) and method address, if any. */
export function matchOperation(method: string, path: string): Operation | undefined {
  return patterns.find((pattern) => pattern.method === method && pattern.regex.test(path))?.op;
}
