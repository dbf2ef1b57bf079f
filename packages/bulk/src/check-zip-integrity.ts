import { crc32, inflateRawSync } from 'node:zlib';
import PizZip from 'pizzip';
import { BulkInputError } from './bulk-input-error';

// How PizZip keeps an entry it has not inflated yet.
interface CompressedEntry {
  dir: boolean;
  _data?: { uncompressedSize?: number; crc32?: number; compressionMethod?: string; getCompressedContent?: () => Uint8Array | string };
}

const STORED = '\x00\x00';
const DEFLATED = '\x08\x00';
const DAMAGED = 'The .xlsx file could not be read (the zip archive is damaged); save it again as Excel Workbook (.xlsx)';

/**
 * Inflates every entry (never past `maxBytes` in all) and checks its size and CRC against the
 * archive's directory. ExcelJS's streaming reader does not report a damaged entry: its rows
 * simply never come, and the upload would wait forever (found by the upload fuzz test).
 * Returns the inflated bytes of the entries named in `keep` (those the archive has), so they
 * are not inflated a second time (PizZip's own reading would, in JavaScript, and would then
 * compress them again when the archive is written out).
 */
export function checkZipIntegrity(zip: PizZip, maxBytes: number, keep: readonly string[] = []): Map<string, Buffer> {
  const kept = new Map<string, Buffer>();
  let remaining = maxBytes;
  let damaged = false;
  for (const [name, entry] of Object.entries(zip.files) as unknown as [string, CompressedEntry][]) {
    const data = entry._data;
    if (entry.dir || !data?.getCompressedContent) continue;
    let bytes: Buffer;
    try {
      const raw = data.getCompressedContent(); // throws when the entry runs past the end of the file
      const compressed = typeof raw === 'string' ? Buffer.from(raw, 'latin1') : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      if (data.compressionMethod === STORED) bytes = compressed;
      else if (data.compressionMethod === DEFLATED)
        bytes = compressed.length === 0 ? compressed : inflateRawSync(compressed, { maxOutputLength: Math.max(1, remaining) });
      else throw new Error('unsupported compression');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new BulkInputError(
          'body_too_large',
          `The .xlsx expands to more than ${Math.floor(maxBytes / 1024 / 1024)} MiB when unzipped; the limit is ${Math.floor(maxBytes / 1024 / 1024)} MiB`,
        );
      }
      throw new BulkInputError('spreadsheet_invalid', DAMAGED);
    }
    // Checked after every entry has been inflated within the limit: a bomb whose forged sizes disagree is too large first.
    damaged ||= bytes.length !== data.uncompressedSize || (data.crc32 !== undefined && crc32(bytes) !== data.crc32 >>> 0);
    remaining -= bytes.length;
    if (keep.includes(name)) kept.set(name, bytes);
  }
  if (damaged) throw new BulkInputError('spreadsheet_invalid', DAMAGED);
  return kept;
}
