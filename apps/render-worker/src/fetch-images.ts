import { imageSize } from 'image-size';
import { OutboundBlockedError, guardedFetch, type GuardedFetchOptions } from '@docgen/security';
import {
  DEFAULT_IMAGE_BOUNDS,
  RenderInputError,
  imageBoundsProblem,
  imageSources,
  type ImageBounds,
  type ImageData,
  type ImageSource,
  type TemplateVariable,
} from '@docgen/templating';
import type { Deadline } from './deadline';
import type { TakeImageFetch } from './image-fetch-budget';

const SIGNATURES: [ImageData['extension'], number[]][] = [
  ['png', [0x89, 0x50, 0x4e, 0x47]],
  ['jpeg', [0xff, 0xd8, 0xff]],
  ['gif', [0x47, 0x49, 0x46, 0x38]],
];

const kindOf = (bytes: Buffer) => SIGNATURES.find(([, signature]) => signature.every((byte, i) => bytes[i] === byte))?.[0];

type FetchOptions = Omit<GuardedFetchOptions, 'method' | 'headers' | 'body'>;

export interface ImageLimits {
  /** MAX_IMAGES_PER_DOCUMENT: images placed in one document (a repeated source counts each time). */
  maxImages: number;
  /** MAX_IMAGE_BYTES_PER_DOCUMENT: the bytes of all distinct images of one document. */
  maxTotalBytes: number;
  /** Fetches in flight at once for one document. */
  concurrency: number;
  /** MAX_IMAGE_PIXELS and MAX_IMAGE_FRAMES: LibreOffice decodes an image to a bitmap of 4 bytes a pixel, every frame of a GIF. */
  bounds?: ImageBounds;
}

export const DEFAULT_IMAGE_LIMITS: ImageLimits = { maxImages: 200, maxTotalBytes: 50 * 1024 * 1024, concurrency: 6 };

const mebibytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/**
 * Fetches every image value of the input (URL or data: URI), top-level and inside loops at
 * any depth, each distinct source once, a few at a time, checked by content, not by
 * headers. A failure names the image and its row. With a deadline, no fetch outlives it:
 * each gets IMAGE_FETCH_TIMEOUT_MS or the time the render has left, whichever is less, and
 * one cut short by the deadline is a RenderTimeoutError, not an image error.
 */
export async function fetchImages(
  variables: TemplateVariable[],
  input: Record<string, unknown>,
  fetchOptions: FetchOptions,
  deadline?: Deadline,
  limits: ImageLimits = DEFAULT_IMAGE_LIMITS,
  /** The organisation's budget of remote fetches (IMAGE_FETCHES_PER_ORG); data: URIs cost nothing. */
  takeFetch?: TakeImageFetch,
): Promise<Map<string, ImageData>> {
  return fetchImageSources(imageSources(variables, input), fetchOptions, deadline, limits, takeFetch);
}

/** fetchImages for the sources imageSources found (a render that has them already). */
export async function fetchImageSources(
  sources: ImageSource[],
  fetchOptions: FetchOptions,
  deadline?: Deadline,
  limits: ImageLimits = DEFAULT_IMAGE_LIMITS,
  takeFetch?: TakeImageFetch,
): Promise<Map<string, ImageData>> {
  if (sources.length > limits.maxImages) {
    throw new RenderInputError(`The document places ${sources.length} images; at most ${limits.maxImages} are allowed per document (MAX_IMAGES_PER_DOCUMENT)`);
  }
  const pending = [...new Map(sources.map((s) => [s.source, s])).values()]; // first use of each source names it
  const images = new Map<string, ImageData>();
  let totalBytes = 0;
  let failed = false;
  const fetchNext = async (): Promise<void> => {
    for (let next = pending.shift(); next && !failed; next = pending.shift()) {
      deadline?.check();
      // A few ms past the deadline, so that the deadline, not the fetch's own timer, ends it.
      const timeoutMs = deadline ? Math.min(fetchOptions.timeoutMs, Math.ceil(deadline.remainingMs()) + 20) : fetchOptions.timeoutMs;
      try {
        if (takeFetch && !next.source.startsWith('data:')) await takeFetch();
        const image = await loadImage(next.label, next.source, { ...fetchOptions, timeoutMs }, limits.bounds ?? DEFAULT_IMAGE_BOUNDS);
        totalBytes += image.data.length;
        if (totalBytes > limits.maxTotalBytes) {
          throw new RenderInputError(`The document's images add up to more than ${mebibytes(limits.maxTotalBytes)} (MAX_IMAGE_BYTES_PER_DOCUMENT)`);
        }
        images.set(next.source, image);
      } catch (error) {
        failed = true;
        deadline?.check();
        throw error;
      }
    }
  };
  const workers = Array.from({ length: Math.min(limits.concurrency, pending.length) }, fetchNext);
  const outcomes = await Promise.allSettled(workers);
  const rejected = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (rejected) throw rejected.reason;
  return images;
}

async function loadImage(label: string, source: string, options: FetchOptions, bounds: ImageBounds): Promise<ImageData> {
  const where = source.startsWith('data:') ? 'its data: URI' : source;
  let bytes: Buffer;
  if (source.startsWith('data:')) {
    const match = /^data:[^;,]*(;base64)?,(.*)$/s.exec(source);
    if (!match) throw new RenderInputError(`${label} has a malformed data: URI`);
    try {
      bytes = match[1] ? Buffer.from(match[2]!, 'base64') : Buffer.from(decodeURIComponent(match[2]!));
    } catch {
      throw new RenderInputError(`${label} has a malformed data: URI`);
    }
    if (bytes.length > options.maxBytes) throw new RenderInputError(`${label} is larger than ${Math.round(options.maxBytes / 1024 / 1024)} MiB`);
  } else {
    try {
      const response = await guardedFetch(source, options);
      if (response.status < 200 || response.status >= 300) throw new RenderInputError(`${label} could not be fetched from ${source}: HTTP ${response.status}`);
      bytes = response.body;
    } catch (error) {
      if (error instanceof RenderInputError) throw error;
      if (error instanceof OutboundBlockedError) {
        throw new RenderInputError(`${label} could not be fetched from ${source}: it points to a private or reserved network address`);
      }
      throw new RenderInputError(`${label} could not be fetched from ${source}: ${(error as Error).message}`);
    }
  }
  const extension = kindOf(bytes);
  if (!extension) throw new RenderInputError(`${label} at ${where} is not a PNG, JPEG or GIF`);
  let size;
  try {
    size = imageSize(bytes);
  } catch {
    throw new RenderInputError(`${label} at ${where} is damaged and cannot be read`);
  }
  if (!size.width || !size.height) throw new RenderInputError(`${label} at ${where} has no size`);
  // Dimensions and frames come from the headers (nothing is decoded): a tiny file can claim a huge bitmap.
  const problem = imageBoundsProblem(bytes, bounds);
  if (problem) throw new RenderInputError(`${label} at ${where} ${problem}`);
  return { data: bytes, extension, width: size.width, height: size.height };
}
