import { LRUCache } from 'lru-cache';
import type { FileStorage } from '@docgen/storage';
import { RenderInputError, TemplateError, storedDocxPackage } from '@docgen/templating';

/**
 * Template files are written once at upload and never change under their key, so each
 * worker keeps the recently used ones in memory (bounded by bytes) instead of reading
 * the same file from storage for every document. A template is kept with its parts stored
 * uncompressed (storedDocxPackage), so no fill inflates them again.
 */
export function cachedTemplateFiles(storage: FileStorage, maxBytes = 64 * 1024 * 1024) {
  const cache = new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (file) => Math.max(1, file.length) });
  return async (fileKey: string): Promise<Buffer> => {
    const cached = cache.get(fileKey);
    if (cached) return cached;
    const file = unpacked(await storage.get(fileKey));
    cache.set(fileKey, file);
    return file;
  };
}

/** A stored template that is not a usable DOCX fails its documents with the reason, without retries. */
function unpacked(file: Buffer): Buffer {
  try {
    return storedDocxPackage(file);
  } catch (error) {
    if (error instanceof TemplateError) throw new RenderInputError(`The template cannot be used: ${error.message}`);
    throw error;
  }
}
