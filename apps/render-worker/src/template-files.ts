import { LRUCache } from 'lru-cache';
import type { FileStorage } from '@docgen/storage';
import {
  DEFAULT_IMAGE_BOUNDS,
  DEFAULT_PACKAGE_LIMITS,
  RenderInputError,
  TemplateError,
  storedDocxPackage,
  type ImageBounds,
  type PackageLimits,
} from '@docgen/templating';

/**
 * Template files are written once at upload and never change under their key, so each
 * worker keeps the recently used ones in memory (bounded by bytes) instead of reading
 * the same file from storage for every document. A template is kept with its parts stored
 * uncompressed (storedDocxPackage), so no fill inflates them again; it is opened with the
 * upload's limit on its unzipped size (MAX_TEMPLATE_EXPANDED_BYTES).
 */
export function cachedTemplateFiles(
  storage: FileStorage,
  maxExpandedBytes = DEFAULT_PACKAGE_LIMITS.maxExpandedBytes,
  maxBytes = 64 * 1024 * 1024,
  images: ImageBounds = DEFAULT_IMAGE_BOUNDS,
) {
  // Parts were bounded when the template was uploaded, perhaps under other limits; pictures
  // are bounded again by this worker's MAX_IMAGE_PIXELS and MAX_IMAGE_FRAMES.
  const limits: PackageLimits = { ...DEFAULT_PACKAGE_LIMITS, maxExpandedBytes, maxPartBytes: undefined, images };
  const cache = new LRUCache<string, Buffer>({ maxSize: maxBytes, sizeCalculation: (file) => Math.max(1, file.length) });
  return async (fileKey: string): Promise<Buffer> => {
    const cached = cache.get(fileKey);
    if (cached) return cached;
    const file = unpacked(await storage.get(fileKey), limits);
    cache.set(fileKey, file);
    return file;
  };
}

/** A stored template that is not a usable DOCX fails its documents with the reason, without retries. */
function unpacked(file: Buffer, limits: PackageLimits): Buffer {
  try {
    return storedDocxPackage(file, limits);
  } catch (error) {
    if (error instanceof TemplateError) throw new RenderInputError(`The template cannot be used: ${error.message}`);
    throw error;
  }
}

/** An HTML template's sanitised HTML by its storage key, cached like the DOCX files (written once, never changed). */
export function cachedTemplateHtml(storage: FileStorage, maxBytes = 16 * 1024 * 1024) {
  const cache = new LRUCache<string, string>({ maxSize: maxBytes, sizeCalculation: (html) => Math.max(1, html.length) });
  return async (key: string): Promise<string> => {
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const html = (await storage.get(key)).toString('utf8');
    cache.set(key, html);
    return html;
  };
}
