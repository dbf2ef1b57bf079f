import { deflateRawSync } from 'node:zlib';
import PizZip from 'pizzip';

interface Compression {
  magic: string;
  compress: (input: Uint8Array, options: { level?: number }) => Uint8Array;
  uncompress: (input: Uint8Array) => Uint8Array;
  compressInputType: string | null;
  uncompressInputType: string | null;
}

const compressions = (PizZip as unknown as { compressions: Record<string, Compression> }).compressions;

/**
 * PizZip's DEFLATE written by Node's zlib instead of pako: the same method (magic 8) and
 * the same level, so the same files, for a fifth of the CPU (a filled DOCX's deflate was
 * about a quarter of its fill: docs/BENCHMARKS.md, "DOCX output deflated by zlib").
 * Added beside PizZip's own, never in its place: reading a zip finds a part's method by its
 * magic in insertion order, so every read still inflates with PizZip's DEFLATE.
 */
export const NATIVE_DEFLATE = 'NATIVE_DEFLATE';

compressions[NATIVE_DEFLATE] ??= {
  magic: compressions.DEFLATE!.magic,
  compress: (input, options) => deflateRawSync(input, { level: options.level ?? 6 }),
  uncompress: compressions.DEFLATE!.uncompress,
  compressInputType: 'uint8array',
  uncompressInputType: compressions.DEFLATE!.uncompressInputType,
};
