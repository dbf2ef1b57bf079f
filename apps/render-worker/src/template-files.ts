import { LRUCache } from 'lru-cache';
import type { FileStorage } from '@docgen/storage';

/**
 * Template files are written once at upload and never change under their key, so each
 * worker keeps the recently used ones in memory (bounded by bytes) instead of reading
 * the same file from storage for every document.
 */
export function cachedTemplateFiles(storage: FileStorage, maxBytes = 64 * 1024 * 1024) {
  const cache = new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (file) => Math.max(1, file.length) });
  return async (fileKey: string): Promise<Buffer> => {
    const cached = cache.get(fileKey);
    if (cached) return cached;
    const file = await storage.get(fileKey);
    cache.set(fileKey, file);
    return file;
  };
}
