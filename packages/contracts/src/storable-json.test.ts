import { CreateDocumentBody } from './documents';
import { MAX_JSON_DEPTH, TOO_DEEP_MESSAGE, UNSTORABLE_TEXT_MESSAGE, unstorableJson } from './storable-json';

const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}"x"${']'.repeat(depth)}`) as unknown;

describe('JSON that PostgreSQL cannot store (found by the fuzz test as a 500)', () => {
  it('finds a NUL or a lone surrogate in a string or a key, at any depth, and nothing in ordinary text', () => {
    const text = (path: (string | number)[]) => ({ path, message: UNSTORABLE_TEXT_MESSAGE });
    expect(unstorableJson({ a: 'ok', items: [{ x: 'fine' }, { y: 'bad\u0000' }] })).toEqual(text(['items', 1, 'y']));
    expect(unstorableJson({ items: ['\uD800'] })).toEqual(text(['items', 0]));
    expect(unstorableJson({ ['k\uDC00']: 1 })).toEqual(text(['k\uDC00']));
    // The first in document order.
    expect(unstorableJson({ a: ['\u0000', '\uD800'], b: '\uDC00' })).toEqual(text(['a', 0]));
    expect(unstorableJson({ emoji: '😀 ünïcödé 中文', deep: nested(MAX_JSON_DEPTH - 1) })).toBeUndefined();
  });

  it(`refuses arrays and objects nested more than ${MAX_JSON_DEPTH} deep, naming where`, () => {
    const problem = unstorableJson({ deep: nested(MAX_JSON_DEPTH) });
    expect(problem).toEqual({ path: ['deep', ...Array<number>(MAX_JSON_DEPTH - 1).fill(0)], message: TOO_DEEP_MESSAGE });
    expect(TOO_DEEP_MESSAGE).toBe('is nested more than 100 levels deep (arrays and objects inside one another); flatten it');
  });

  it('walks each value once: a 1 MiB body nested 500,000 deep stops at the limit, and a wide one is read through', () => {
    // Copying the path at every level made this quadratic: 8 s of a blocked gateway at 50,000 levels.
    expect(unstorableJson({ a: nested(500_000) })?.message).toBe(TOO_DEEP_MESSAGE);
    const wide = { rows: Array.from({ length: 100_000 }, (_, i) => ({ name: `row ${i}`, tags: ['a', 'b'] })) };
    expect(unstorableJson(wide)).toBeUndefined();
    wide.rows[99_999]!.tags[1] = 'x\u0000';
    expect(unstorableJson(wide)?.path).toEqual(['rows', 99_999, 'tags', 1]);
  });

  it('makes such an input_json a validation error naming the path', () => {
    const parsed = CreateDocumentBody.safeParse({
      template_id: '0b0e7f8e-1d2c-4a5b-9c8d-7e6f5a4b3c2d',
      input_json: { items: [{ y: '\uD800' }] },
      output_format: 'pdf',
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues).toEqual([
      expect.objectContaining({
        path: ['input_json', 'items', 0, 'y'],
        message: 'holds a NUL character or half of a surrogate pair, which cannot be stored; remove it',
      }),
    ]);
  });
});
