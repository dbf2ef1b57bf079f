// A NUL, or half of a UTF-16 surrogate pair: JSON can carry them, PostgreSQL's jsonb cannot store them.
// eslint-disable-next-line no-control-regex -- the NUL is what is looked for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The path (e.g. ["items", 2, "name"]) of the first key or string in a JSON value holding a
 * character PostgreSQL cannot store, or undefined. Walked without recursion, so a deeply
 * nested value cannot overflow the stack.
 */
export function unstorableTextPath(value: unknown): (string | number)[] | undefined {
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (typeof next.value === 'string') {
      if (UNSTORABLE.test(next.value)) return next.path;
    } else if (Array.isArray(next.value)) {
      next.value.forEach((item, index) => pending.push({ value: item, path: [...next.path, index] }));
    } else if (next.value && typeof next.value === 'object') {
      for (const [key, item] of Object.entries(next.value)) {
        if (UNSTORABLE.test(key)) return [...next.path, key];
        pending.push({ value: item, path: [...next.path, key] });
      }
    }
  }
  return undefined;
}

export const UNSTORABLE_TEXT_MESSAGE = 'holds a NUL character or half of a surrogate pair, which cannot be stored; remove it';
