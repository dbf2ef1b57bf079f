import type PizZip from 'pizzip';

/** How PizZip keeps an entry it has not read yet (its CompressedObject). */
export interface CompressedData {
  uncompressedSize?: number;
  compressionMethod?: string;
  /** As the archive declares it (PizZip reads it as a signed 32-bit number). */
  crc32?: number;
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
