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

/** A single name: read as docxtemplater reads it, from the innermost scope that has it. */
const SIMPLE_NAME = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

function lookup(name: string, scopes: unknown[]): unknown {
  for (let i = scopes.length - 1; i >= 0; i--) {
    const scope = scopes[i];
    if (name === '.') return scope;
    if (typeof scope === 'object' && scope !== null && Object.hasOwn(scope, name)) return (scope as Record<string, unknown>)[name];
  }
  return undefined;
}

/** docxtemplater's `parser` option: how the fill reads every tag that is more than a name (a member path, a computation). */
export type FillParser = (expression: string, meta?: { tag?: unknown }) => { get: (scope: unknown, context: FillContext) => unknown };
interface FillContext {
  num: number;
  scopeList: unknown[];
  scopePath: string[];
  scopePathItem: number[];
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
 * steps, not gigabytes. Every tag is read as the fill will read it: a name from the scopes,
 * anything else through `parser` (the fill's own), so a section on a member path (`{#d.a}`)
 * or on a computed list repeats here as often as it will there.
 */
export function checkOutputSize(files: Part[][], data: Record<string, unknown>, images: Map<string, ImageData>, maxBytes: number, parser: FillParser): number {
  let total = 0;
  const add = (bytes: number) => {
    total += bytes;
    if (total > maxBytes) {
      throw new OutputTooLargeError(
        `The filled document would be larger than the output limit of ${mib(maxBytes)} (MAX_OUTPUT_BYTES); use fewer list items or shorter values`,
      );
    }
  };
  const parsed = new Map<Part, ReturnType<FillParser>>();
  const valueOf = (part: Part, scopes: unknown[], loops: { path: string[]; items: number[] }): unknown => {
    const name = part.value.trim();
    if (name === '.' || SIMPLE_NAME.test(name)) return lookup(name, scopes);
    let reader = parsed.get(part);
    if (!reader) parsed.set(part, (reader = parser(part.value, { tag: part })));
    // As docxtemplater asks: the innermost scope first, then outwards while the answer is null.
    for (let num = scopes.length - 1; num >= 0; num--) {
      const value = reader.get(scopes[num], { num, scopeList: scopes, scopePath: loops.path, scopePathItem: loops.items });
      if (value !== undefined && value !== null) return value;
    }
    return undefined;
  };
  const walk = (parts: Part[], scopes: unknown[], loops: { path: string[]; items: number[] }) => {
    for (const part of parts) {
      if (part.type !== 'placeholder') {
        add(part.value.length);
        continue;
      }
      const value = valueOf(part, scopes, loops);
      if (part.module === 'loop' && part.subparsed) {
        const empty = !value || (Array.isArray(value) && value.length === 0);
        if (part.inverted) {
          if (empty) walk(part.subparsed, scopes, loops);
        } else if (Array.isArray(value)) {
          for (const [index, item] of value.entries()) {
            const before = total;
            walk(part.subparsed, [...scopes, item], { path: [...loops.path, part.value], items: [...loops.items, index] });
            if (total - before < MIN_BYTES_PER_ITEM) add(MIN_BYTES_PER_ITEM - (total - before));
          }
        } else if (!empty) {
          walk(part.subparsed, typeof value === 'object' ? [...scopes, value] : scopes, loops);
        }
      } else if (part.module === IMAGE_MODULE_NAME) {
        const image = value ? images.get(String(value)) : undefined;
        if (image) add(image.data.length + IMAGE_OVERHEAD_BYTES);
      } else {
        add(textBytes(value));
      }
    }
  };
  for (const parts of files) walk(parts, [data], { path: [], items: [] });
  return total;
}
