import { BarcodeRequest } from '@docgen/expressions';
import type { DocumentBarcodes } from '../document-barcodes';
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

/** docxtemplater's `parser` option: how the fill reads every tag (docx-parser.ts). */
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
 * images, QR codes and barcodes by their bytes at every placement. Stops with OutputTooLargeError as soon as the running total passes
 * `maxBytes`, so a loop bomb (280,000 items over a 10 KB table row) costs a few thousand
 * steps, not gigabytes. Every tag is read as the fill reads it, through the fill's own
 * `parser` and docxtemplater's scope rules (the innermost scope first, outwards while the
 * answer is null), and every section is entered as docxtemplater enters it (loopOverValue):
 * a section on a member path (`{#d.a}`), a computed one or one on a number repeats here
 * exactly as often as there.
 */
export function checkOutputSize(
  files: Part[][],
  data: Record<string, unknown>,
  images: Map<string, ImageData>,
  maxBytes: number,
  parser: FillParser,
  barcodes: DocumentBarcodes,
): number {
  let total = 0;
  const add = (bytes: number) => {
    total += bytes;
    if (total > maxBytes) {
      throw new OutputTooLargeError(
        `The filled document would be larger than the output limit of ${mib(maxBytes)} (MAX_OUTPUT_BYTES); use fewer list items or shorter values`,
      );
    }
  };
  const readers = new Map<Part, ReturnType<FillParser>>();
  const valueOf = (part: Part, scopes: unknown[], loops: Loops): unknown => {
    let reader = readers.get(part);
    if (!reader) readers.set(part, (reader = parser(part.value, { tag: part })));
    for (let num = scopes.length - 1; num >= 0; num--) {
      const value = reader.get(scopes[num], { num, scopeList: scopes, scopePath: loops.path, scopePathItem: loops.items });
      if (value !== undefined && value !== null) return value;
    }
    return undefined;
  };
  const walk = (parts: Part[], scopes: unknown[], loops: Loops) => {
    for (const part of parts) {
      if (part.type !== 'placeholder') {
        add(part.value.length);
        continue;
      }
      const value = valueOf(part, scopes, loops);
      if (part.module === 'loop' && part.subparsed) {
        const enter = (scope: unknown, index: number) =>
          walk(part.subparsed!, [...scopes, scope], { path: [...loops.path, part.value], items: [...loops.items, index] });
        const type = Object.prototype.toString.call(value);
        const falsy = !value || (type === '[object Array]' && (value as unknown[]).length === 0);
        // docxtemplater's loopOverValue: a list repeats, a plain object is the scope, anything else true (a Decimal too) shows once in the scope it is in.
        if (falsy || part.inverted) {
          if (falsy && part.inverted) enter(scopes[scopes.length - 1], 0);
        } else if (type === '[object Array]') {
          for (const [index, item] of (value as unknown[]).entries()) {
            const before = total;
            enter(item, index);
            if (total - before < MIN_BYTES_PER_ITEM) add(MIN_BYTES_PER_ITEM - (total - before));
          }
        } else {
          enter(type === '[object Object]' ? value : scopes[scopes.length - 1], 0);
        }
      } else if (part.module === IMAGE_MODULE_NAME) {
        // A QR code or barcode is drawn here, once per value, by the fill's own DocumentBarcodes
        // (the fill then reuses the picture), and counted at every placement like a fetched image.
        const image = value instanceof BarcodeRequest ? barcodes.draw(value, part.value) : value ? images.get(String(value)) : undefined;
        if (image) add(image.data.length + IMAGE_OVERHEAD_BYTES);
      } else {
        add(textBytes(value));
      }
    }
  };
  for (const parts of files) walk(parts, [data], { path: [], items: [] });
  return total;
}

/** The sections a tag is inside, as docxtemplater tells the parser (for its messages). */
interface Loops {
  path: string[];
  items: number[];
}
