import { CreateDocumentBody } from './documents';
import { unstorableTextPath } from './storable-json';

describe('JSON that PostgreSQL cannot store (found by the fuzz test as a 500)', () => {
  it('finds a NUL or a lone surrogate in a string or a key, at any depth, and nothing in ordinary text', () => {
    expect(unstorableTextPath({ a: 'ok', items: [{ x: 'fine' }, { y: 'bad\u0000' }] })).toEqual(['items', 1, 'y']);
    expect(unstorableTextPath({ items: ['\uD800'] })).toEqual(['items', 0]);
    expect(unstorableTextPath({ ['k\uDC00']: 1 })).toEqual(['k\uDC00']);
    expect(unstorableTextPath({ emoji: '😀 ünïcödé 中文', deep: JSON.parse(`${'['.repeat(5_000)}"x"${']'.repeat(5_000)}`) })).toBeUndefined();
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
