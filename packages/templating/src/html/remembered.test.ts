import { rememberedByText } from './remembered';

// An entry of a 4-character text counts 2 × 4 + 64 = 72 characters against the bound.
const ENTRY = 72;

describe('rememberedByText', () => {
  it('computes a text once, and again only once the bound has pushed it out', () => {
    const seen: string[] = [];
    const upper = rememberedByText((text) => {
      seen.push(text);
      return { text: text.toUpperCase() };
    }, 2 * ENTRY);
    expect(upper('abcd')).toEqual({ text: 'ABCD' });
    expect(upper('abcd')).toBe(upper('abcd'));
    expect(upper('efgh')).toEqual({ text: 'EFGH' });
    expect(seen).toEqual(['abcd', 'efgh']);
    upper('ijkl'); // a third entry: the least recently used (abcd) goes
    upper('efgh');
    upper('abcd');
    expect(seen).toEqual(['abcd', 'efgh', 'ijkl', 'abcd']);
  });

  it('computes a text past the bound every time instead of keeping it', () => {
    let calls = 0;
    const length = rememberedByText((text) => ({ length: (calls++, text.length) }), ENTRY - 1);
    length('abcd');
    length('abcd');
    expect(calls).toBe(2);
  });
});
