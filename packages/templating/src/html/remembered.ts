import { LRUCache } from 'lru-cache';

/**
 * A pure function of a text, remembered for the texts it saw last (bounded by their total
 * length, not counting the results, which are about as long here; a text longer than the
 * bound is computed every time). Every document of an HTML
 * template reads the same template and style sheets again: their results are worked out once
 * per process instead of once per document. The result is shared between callers, so it must
 * not be changed by them.
 */
export function rememberedByText<T extends object>(compute: (text: string) => T, maxChars: number): (text: string) => T {
  const cache = new LRUCache<string, T>({ maxSize: maxChars, sizeCalculation: (_, text) => Math.max(1, text.length) });
  return (text) => {
    let result = cache.get(text);
    if (result === undefined) {
      result = compute(text);
      cache.set(text, result);
    }
    return result;
  };
}
