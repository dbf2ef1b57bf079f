import { crc32 } from 'node:zlib';
import type PizZip from 'pizzip';

// This module reads and builds PizZip's entries by its internals (_data, CompressedObject), so
// package.json pins pizzip to one version: a new one is taken on purpose, with these tests run.
// PizZip's own class for an entry held as it is written: not exported by its index, and the same module PizZip loads.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a file of pizzip's, with no types of its own
const CompressedObject = require('pizzip/js/compressedObject.js') as {
  from(source: { compressionMethod: string; compressedSize: number; uncompressedSize: number; crc32: number }, content: () => Uint8Array): object;
};

/** How PizZip keeps an entry it has not read yet (its CompressedObject). */
export interface CompressedData {
  uncompressedSize?: number;
  compressionMethod?: string;
  getCompressedContent?: () => Uint8Array | string;
}

export interface ZipEntry {
  name: string;
  dir: boolean;
  _data?: CompressedData;
  options: { compression?: string };
  asNodeBuffer(): Buffer;
}

export const STORED = '\x00\x00';
export const DEFLATED = '\x08\x00';

/**
 * A part's bytes. A part the archive keeps stored (uncompressed) and nobody has read yet is
 * returned as a view of the archive and the entry left as it is: PizZip's own readers copy it
 * twice and turn the entry into loose data, which generate() must then checksum again (and, for
 * a deflated output, compress again) for every document, where an entry left alone is written
 * out as it came, checksum and all. The worker's templates are kept stored (storedDocxPackage),
 * so a render's checks read every part this way.
 */
export function partBytes(entry: PizZip.ZipObject): Buffer {
  const data = (entry as unknown as ZipEntry)._data;
  if (data?.getCompressedContent && data.compressionMethod === STORED) {
    const raw = data.getCompressedContent();
    return typeof raw === 'string' ? Buffer.from(raw, 'latin1') : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  }
  return entry.asNodeBuffer();
}

/**
 * A file as PizZip should be given it: a plain Uint8Array over the same memory. Given a Buffer,
 * PizZip copies every part it writes out unread byte by byte in JavaScript (its nodebuffer to
 * uint8array transform) where a Uint8Array is copied by one native `set`.
 */
export const zipInput = (file: Buffer): Uint8Array => new Uint8Array(file.buffer, file.byteOffset, file.byteLength);

/**
 * Adds a part written stored, its checksum computed by zlib: given the bytes themselves, PizZip
 * computes the CRC-32 in JavaScript when it writes the package, about 3 ms a megabyte (most of
 * what a 300 KB photo inserted into each document cost). The part is then read and written
 * like one the template held stored (partBytes, generate()).
 */
export function addStoredPart(zip: PizZip, name: string, bytes: Buffer): void {
  const content = zipInput(bytes);
  const stored = CompressedObject.from(
    { compressionMethod: STORED, compressedSize: content.length, uncompressedSize: content.length, crc32: crc32(content) },
    () => content,
  );
  zip.file(name, stored as unknown as Uint8Array, { binary: true });
}

/** The package written out, without PizZip's last copy of it into a Buffer (type 'nodebuffer' copies the whole archive once more). */
export function zipOutput(zip: PizZip, compression: string): Buffer {
  const written = zip.generate({ type: 'uint8array', compression: compression as 'STORE' | 'DEFLATE' });
  return Buffer.from(written.buffer, written.byteOffset, written.byteLength);
}
