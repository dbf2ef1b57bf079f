import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth: equal requests hash equal whatever the key order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export const requestHash = (request: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(canonical(request)))
    .digest('hex');
