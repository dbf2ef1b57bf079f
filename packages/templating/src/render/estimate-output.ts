import { IMAGE_MODULE_NAME, type ImageData } from '../image-module';
import { RenderInputError } from './render-error';

/** A part of docxtemplater's compiled template: static XML, a tag, or a loop with its body. */
interface Part {
  type: string;
  value: string;
  module?: string;
  inverted?: boolean;
  subparsed?: Part[];
}

/** Every loop item counts at least this much, so the walk itself is bounded by the limit. */
const MIN_BYTES_PER_ITEM = 64;
/** The drawing XML and relationship an image placement adds besides its bytes. */
const IMAGE_OVERHEAD_BYTES = 2_000;
/** `linebreaks`: each newline in a value becomes a break run. */
const BYTES_PER_LINE_BREAK = 40;

export class OutputTooLargeError extends RenderInputError {}

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

const PLAIN_NAME = /^[\p{L}\p{N}_$.]+$/u;

function lookup(name: string, scopes: unknown[]): unknown {
  for (let i = scopes.length - 1; i >= 0; i--) {
    const scope = scopes[i];
    if (name === '.') return scope;
    if (typeof scope === 'object' && scope !== null && Object.hasOwn(scope, name)) return (scope as Record<string, unknown>)[name];
  }
  return undefined;
}

function textBytes(value: unknown): number {
  if (value === undefined || value === null) return 0;
  const text = typeof value === 'string' ? value : String(value);
  let breaks = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) breaks++;
  return text.length + breaks * BYTES_PER_LINE_BREAK;
}

/**
 * The size of a fill's output, worked out from the compiled template and the data before
 * docxtemplater spends the memory: static XML once per loop item, values by their length,
 * images by their bytes. Stops with OutputTooLargeError as soon as the running total passes
 * `maxBytes`, so a loop bomb (280,000 items over a 10 KB table row) costs a few thousand
 * steps, not gigabytes.
 */
export function checkOutputSize(files: Part[][], data: Record<string, unknown>, images: Map<string, ImageData>, maxBytes: number): number {
  let total = 0;
  const add = (bytes: number) => {
    total += bytes;
    if (total > maxBytes) {
      throw new OutputTooLargeError(
        `The filled document would be larger than the output limit of ${mib(maxBytes)} (MAX_OUTPUT_BYTES); use fewer list items or shorter values`,
      );
    }
  };
  const walk = (parts: Part[], scopes: unknown[]) => {
    for (const part of parts) {
      if (part.type !== 'placeholder') {
        add(part.value.length);
        continue;
      }
      const value = lookup(part.value, scopes);
      // A condition (`{#total > 1000}…{/}`) is counted as shown: its content once, in the same scope.
      if (part.module === 'loop' && part.subparsed && !PLAIN_NAME.test(part.value.trim())) {
        walk(part.subparsed, scopes);
        continue;
      }
      if (part.module === 'loop' && part.subparsed) {
        const empty = !value || (Array.isArray(value) && value.length === 0);
        if (part.inverted) {
          if (empty) walk(part.subparsed, scopes);
        } else if (Array.isArray(value)) {
          for (const item of value) {
            const before = total;
            walk(part.subparsed, [...scopes, item]);
            if (total - before < MIN_BYTES_PER_ITEM) add(MIN_BYTES_PER_ITEM - (total - before));
          }
        } else if (!empty) {
          walk(part.subparsed, typeof value === 'object' ? [...scopes, value] : scopes);
        }
      } else if (part.module === IMAGE_MODULE_NAME) {
        const image = value ? images.get(String(value)) : undefined;
        if (image) add(image.data.length + IMAGE_OVERHEAD_BYTES);
      } else {
        add(textBytes(value));
      }
    }
  };
  for (const parts of files) walk(parts, [data]);
  return total;
}
