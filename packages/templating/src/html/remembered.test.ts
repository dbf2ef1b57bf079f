import { rememberedByText } from './remembered';

describe('rememberedByText', () => {
  it('computes a text once, and again only once the bound has pushed it out', () => {
    const seen: string[] = [];
    const upper = rememberedByText((text) => {
      seen.push(text);
      return { text: text.toUpperCase() };
    }, 10);
    expect(upper('abcd')).toEqual({ text: 'ABCD' });
    expect(upper('abcd')).toBe(upper('abcd'));
    expect(upper('efgh')).toEqual({ text: 'EFGH' });
    expect(seen).toEqual(['abcd', 'efgh']);
    upper('ijkl'); // 12 characters with the others: the least recently used (abcd) goes
    upper('efgh');
    upper('abcd');
    expect(seen).toEqual(['abcd', 'efgh', 'ijkl', 'abcd']);
  });

  it('computes a text longer than the bound every time instead of keeping it', () => {
    let calls = 0;
    const length = rememberedByText((text) => ({ length: (calls++, text.length) }), 4);
    length('long text');
    length('long text');
    expect(calls).toBe(2);
  });
});
