import { imageSize } from 'image-size';
import { OutboundBlockedError, guardedFetch, type GuardedFetchOptions } from '@docgen/security';
import { RenderInputError, type ImageData, type TemplateVariable } from '@docgen/templating';
import type { Deadline } from './deadline';

const SIGNATURES: [ImageData['extension'], number[]][] = [
  ['png', [0x89, 0x50, 0x4e, 0x47]],
  ['jpeg', [0xff, 0xd8, 0xff]],
  ['gif', [0x47, 0x49, 0x46, 0x38]],
];

const kindOf = (bytes: Buffer) => SIGNATURES.find(([, signature]) => signature.every((byte, i) => bytes[i] === byte))?.[0];

type FetchOptions = Omit<GuardedFetchOptions, 'method' | 'headers' | 'body'>;

/** Width x height an image may have: LibreOffice decodes it to a bitmap of 4 bytes a pixel. */
export const DEFAULT_MAX_IMAGE_PIXELS = 40_000_000;

/**
 * Fetches every image token's value (URL or data: URI), checked by content, not by headers.
 * With a deadline, no fetch outlives it: each gets IMAGE_FETCH_TIMEOUT_MS or the time the
 * render has left, whichever is less, and one cut short by the deadline is a
 * RenderTimeoutError, not an image error.
 */
export async function fetchImages(
  variables: TemplateVariable[],
  input: Record<string, unknown>,
  fetchOptions: FetchOptions,
  deadline?: Deadline,
  maxPixels = DEFAULT_MAX_IMAGE_PIXELS,
): Promise<Map<string, ImageData>> {
  const images = new Map<string, ImageData>();
  for (const variable of variables.filter((v) => v.type === 'image')) {
    const value = input[variable.name];
    if (typeof value !== 'string' || images.has(value)) continue;
    deadline?.check();
    // A few ms past the deadline, so that the deadline, not the fetch's own timer, ends it.
    const timeoutMs = deadline ? Math.min(fetchOptions.timeoutMs, Math.ceil(deadline.remainingMs()) + 20) : fetchOptions.timeoutMs;
    try {
      images.set(value, await loadImage(variable.name, value, { ...fetchOptions, timeoutMs }, maxPixels));
    } catch (error) {
      deadline?.check();
      throw error;
    }
  }
  return images;
}

async function loadImage(name: string, source: string, options: FetchOptions, maxPixels: number): Promise<ImageData> {
  const label = source.startsWith('data:') ? 'its data: URI' : source;
  let bytes: Buffer;
  if (source.startsWith('data:')) {
    const match = /^data:[^;,]*(;base64)?,(.*)$/s.exec(source);
    if (!match) throw new RenderInputError(`Image "${name}" has a malformed data: URI`);
    bytes = match[1] ? Buffer.from(match[2]!, 'base64') : Buffer.from(decodeURIComponent(match[2]!));
    if (bytes.length > options.maxBytes) throw new RenderInputError(`Image "${name}" is larger than ${Math.round(options.maxBytes / 1024 / 1024)} MiB`);
  } else {
    try {
      const response = await guardedFetch(source, options);
      if (response.status < 200 || response.status >= 300) throw new RenderInputError(`Image "${name}" could not be fetched from ${source}: HTTP ${response.status}`);
      bytes = response.body;
    } catch (error) {
      if (error instanceof RenderInputError) throw error;
      if (error instanceof OutboundBlockedError) {
        throw new RenderInputError(`Image "${name}" could not be fetched from ${source}: it points to a private or reserved network address`);
      }
      throw new RenderInputError(`Image "${name}" could not be fetched from ${source}: ${(error as Error).message}`);
    }
  }
  const extension = kindOf(bytes);
  if (!extension) throw new RenderInputError(`Image "${name}" at ${label} is not a PNG, JPEG or GIF`);
  let size;
  try {
    size = imageSize(bytes);
  } catch {
    throw new RenderInputError(`Image "${name}" at ${label} is damaged and cannot be read`);
  }
  if (!size.width || !size.height) throw new RenderInputError(`Image "${name}" at ${label} has no size`);
  // Dimensions come from the header (image-size decodes nothing): a tiny file can claim a huge bitmap.
  if (size.width * size.height > maxPixels) {
    throw new RenderInputError(
      `Image "${name}" at ${label} is ${size.width} x ${size.height} pixels, more than the limit of ${maxPixels.toLocaleString('en')} pixels (MAX_IMAGE_PIXELS)`,
    );
  }
  return { data: bytes, extension, width: size.width, height: size.height };
}
