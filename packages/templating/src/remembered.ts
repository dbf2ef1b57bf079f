import { LRUCache } from 'lru-cache';

const MAX_ENTRIES = 10_000;
/** What an entry costs besides its texts (the map's and the list's slots, the result object), in characters. */
const ENTRY_CHARS = 64;

/**
 * A pure function of a text, remembered for the texts it saw last. The bound counts each text
 * twice (its result, here, is about as long: a template's text and style sheets, a sanitised
 * style sheet) and a fixed cost an entry, and there are at most MAX_ENTRIES; a text past the
 * bound is computed every time. Every document of an HTML template reads the same template
 * and style sheets again, and every document of a DOCX template the same relationships parts:
 * their results are worked out once per process instead of once per document. The result is
 * shared between callers, so it must not be changed by them, and must hold nothing but what
 * it is (no parsed document kept alive by a closure).
 */
export function rememberedByText<T extends object>(compute: (text: string) => T, maxChars: number): (text: string) => T {
  const cache = new LRUCache<string, T>({
    max: MAX_ENTRIES,
    maxSize: maxChars,
    sizeCalculation: (_, text) => 2 * text.length + ENTRY_CHARS,
  });
  return (text) => {
    let result = cache.get(text);
    if (result === undefined) {
      result = compute(text);
      cache.set(text, result);
    }
    return result;
  };
}
