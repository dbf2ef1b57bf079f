// A NUL, or half of a UTF-16 surrogate pair: JSON can carry them, PostgreSQL's jsonb cannot store them.
// eslint-disable-next-line no-control-regex -- the NUL is what is looked for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Arrays and objects inside one another past this are refused: no template reads that deep, and every later walk of the value (storage, rendering) stays cheap. */
export const MAX_JSON_DEPTH = 100;

export const UNSTORABLE_TEXT_MESSAGE = 'holds a NUL character or half of a surrogate pair, which cannot be stored; remove it';
export const TOO_DEEP_MESSAGE = `is nested more than ${MAX_JSON_DEPTH} levels deep (arrays and objects inside one another); flatten it`;

export interface UnstorableJson {
  /** Where, e.g. ["items", 2, "name"]. */
  path: (string | number)[];
  message: string;
}

interface Step {
  value: unknown;
  key: string | number | undefined;
  parent: Step | undefined;
  depth: number;
}

const pathOf = (step: Step): (string | number)[] => {
  const path: (string | number)[] = [];
  for (let at: Step | undefined = step; at && at.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
};

/**
 * The first thing in a JSON value that PostgreSQL cannot store or that nests too deep: a key
 * or string holding a NUL or a lone surrogate, or an array or object more than
 * MAX_JSON_DEPTH levels down. Undefined when there is none. One pass without recursion, each
 * value visited once and its path built only when it is the answer, so the time is linear
 * in the size of the value whatever its shape.
 */
export function unstorableJson(value: unknown): UnstorableJson | undefined {
  const pending: Step[] = [{ value, key: undefined, parent: undefined, depth: 0 }];
  while (pending.length > 0) {
    const step = pending.pop()!;
    const current = step.value;
    if (typeof current === 'string') {
      if (UNSTORABLE.test(current)) return { path: pathOf(step), message: UNSTORABLE_TEXT_MESSAGE };
      continue;
    }
    if (!current || typeof current !== 'object') continue;
    if (step.depth >= MAX_JSON_DEPTH) return { path: pathOf(step), message: TOO_DEEP_MESSAGE };
    const depth = step.depth + 1;
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) pending.push({ value: current[index], key: index, parent: step, depth });
    } else {
      const keys = Object.keys(current);
      for (const key of keys) if (UNSTORABLE.test(key)) return { path: [...pathOf(step), key], message: UNSTORABLE_TEXT_MESSAGE };
      for (let index = keys.length - 1; index >= 0; index -= 1) {
        const key = keys[index]!;
        pending.push({ value: (current as Record<string, unknown>)[key], key, parent: step, depth });
      }
    }
  }
  return undefined;
}
