import { deflateRawSync } from 'node:zlib';
import PizZip from 'pizzip';
import { isCompressedBitmap } from '../image-bounds';
import { partBytes, type ZipEntry } from '../zip-entry';

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
  compress: (input, options) => {
    const deflated = deflateRawSync(input, { level: options.level ?? 6 });
    return new Uint8Array(deflated.buffer, deflated.byteOffset, deflated.byteLength); // not a Buffer: see zipInput
  },
  uncompress: compressions.DEFLATE!.uncompress,
  compressInputType: 'uint8array',
  uncompressInputType: compressions.DEFLATE!.uncompressInputType,
};

/**
 * Marks the pictures of a package that are compressed already to be written stored when the
 * package is deflated: deflating a PNG or JPEG again saves next to nothing and cost a DOCX with
 * a 300 KB logo about 5 ms a document. A part the fill left unread is then copied out as the
 * template stored it (zip-entry.ts).
 */
export function storeCompressedPictures(zip: PizZip): void {
  for (const [name, entry] of Object.entries(zip.files)) {
    if (entry.dir || /\.(xml|rels)$/i.test(name)) continue;
    if (isCompressedBitmap(partBytes(entry))) (entry as unknown as ZipEntry).options.compression = 'STORE';
  }
}
