/**
 * The data docxtemplater fills with has numbers and dates already written out in the locale
 * (`{total}` prints "1,234.50"); expressions must compute on the values as sent. Each
 * prepared object (the top level and every list row) carries the input it was made from
 * under this symbol, invisible to docxtemplater.
 */
const RAW = Symbol('docgen.rawValues');

export function withRawValues<T extends object>(prepared: T, raw: unknown): T {
  Object.defineProperty(prepared, RAW, { value: raw, enumerable: false });
  return prepared;
}

/** The input a prepared object was made from, or the value itself. */
export function rawValues(value: unknown): unknown {
  return typeof value === 'object' && value !== null && RAW in value ? (value as Record<symbol, unknown>)[RAW] : value;
}
