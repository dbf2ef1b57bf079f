import { inflateRawSync } from 'node:zlib';
import PizZip from 'pizzip';
import { TemplateError } from './template-error';

export interface PackageLimits {
  /** Largest total size of the unzipped parts. */
  maxExpandedBytes: number;
  maxEntries: number;
}

export const DEFAULT_PACKAGE_LIMITS: PackageLimits = { maxExpandedBytes: 100 * 1024 * 1024, maxEntries: 5_000 };

const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const OLE_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
// Password-protected DOCX files are OLE containers with an "EncryptedPackage" stream.
const ENCRYPTED_PACKAGE_NAME = Buffer.from('EncryptedPackage', 'utf16le');

// How PizZip keeps an entry it has not inflated yet (its CompressedObject).
interface CompressedData {
  uncompressedSize?: number;
  compressionMethod?: string;
  getCompressedContent?: () => Uint8Array | string;
}

interface ZipEntry {
  name: string;
  dir: boolean;
  _data?: CompressedData;
  asNodeBuffer(): Buffer;
}

const STORED = '\x00\x00';
const DEFLATED = '\x08\x00';
const MiB = 1024 * 1024;

/**
 * Opens an uploaded DOCX without trusting it: refuses OLE files (legacy .doc, encrypted
 * DOCX) with a message saying what to do, and zip bombs: first by the sizes the archive
 * declares, before anything is inflated, then by inflating each entry with its output capped
 * at what is left of the limit, since the declared sizes can be forged.
 */
export function openDocxPackage(file: Buffer, limits: PackageLimits = DEFAULT_PACKAGE_LIMITS): PizZip {
  if (file.length === 0) throw new TemplateError('invalid', 'The uploaded file is empty');
  if (file.subarray(0, 8).equals(OLE_SIGNATURE)) {
    if (file.includes(ENCRYPTED_PACKAGE_NAME)) {
      throw new TemplateError('invalid', 'The DOCX is password-protected; remove the password in Word and upload it again');
    }
    throw new TemplateError('invalid', 'Legacy .doc files are not supported; open the file in Word and save it as .docx');
  }
  if (!file.subarray(0, 4).equals(ZIP_SIGNATURE)) {
    throw new TemplateError('invalid', 'The file is not a valid DOCX (it is not a zip archive)');
  }
  let zip: PizZip;
  try {
    zip = new PizZip(file);
  } catch {
    throw new TemplateError('invalid', 'The file is not a valid DOCX (the zip archive is damaged)');
  }
  const entries = Object.values(zip.files) as unknown as ZipEntry[];
  if (entries.length > limits.maxEntries) {
    throw new TemplateError('too_large', `The DOCX holds ${entries.length} files; at most ${limits.maxEntries} are accepted`);
  }
  const expanded = entries.reduce((total, entry) => total + (entry._data?.uncompressedSize ?? 0), 0);
  if (expanded > limits.maxExpandedBytes) {
    throw new TemplateError(
      'too_large',
      `The DOCX expands to ${Math.ceil(expanded / MiB)} MiB when unzipped; the limit is ${Math.floor(limits.maxExpandedBytes / MiB)} MiB`,
    );
  }
  // The declared sizes can lie: inflate every entry, never past what is left of the limit, and
  // refuse the package the moment one goes over. A size that differs from the declared one
  // (which PizZip would only notice after inflating it whole) is a damaged archive.
  let remaining = limits.maxExpandedBytes;
  for (const entry of entries) {
    if (entry.dir) continue;
    const bytes = boundedContent(entry, remaining);
    if (!bytes) {
      throw new TemplateError(
        'too_large',
        `The DOCX expands to more than ${Math.floor(limits.maxExpandedBytes / MiB)} MiB when unzipped; the limit is ${Math.floor(limits.maxExpandedBytes / MiB)} MiB`,
      );
    }
    if (entry._data?.uncompressedSize !== undefined && bytes.length !== entry._data.uncompressedSize) {
      throw new TemplateError('invalid', 'The file is not a valid DOCX (the zip archive is damaged)');
    }
    remaining -= bytes.length;
  }
  if (!zip.file('word/document.xml') || !zip.file('[Content_Types].xml')) {
    throw new TemplateError('invalid', 'The file is not a valid DOCX (word/document.xml is missing)');
  }
  return zip;
}

/**
 * The package again with every part stored rather than deflated, opened with the limits of
 * openDocxPackage. A fill reads the parts it templates and the render's checks read every
 * part: from a stored package none of them is inflated again for each document, which took a
 * real Word template's fill from 7.0 to 6.1 ms for a PDF (`npm run bench:fill`).
 */
export function storedDocxPackage(file: Buffer, limits: PackageLimits = DEFAULT_PACKAGE_LIMITS): Buffer {
  return openDocxPackage(file, limits).generate({ type: 'nodebuffer', compression: 'STORE' });
}

/**
 * Whether every entry of an archive inflates, in total, to at most maxBytes, measured by
 * really inflating each one with zlib's output capped at what is left (declared sizes can
 * be forged). For other zip formats (xlsx) that need the same guard as DOCX uploads.
 */
export function zipExpandsWithin(zip: PizZip, maxBytes: number): boolean {
  let remaining = maxBytes;
  for (const entry of Object.values(zip.files) as unknown as ZipEntry[]) {
    if (entry.dir) continue;
    const bytes = boundedContent(entry, remaining);
    if (!bytes) return false;
    remaining -= bytes.length;
  }
  return true;
}

/**
 * Reads a part, checking its real inflated size too: declared sizes can lie. Inflation stops
 * at the limit, so a part that would expand past it is refused without being held in memory.
 */
export function readPart(zip: PizZip, name: string, limits: PackageLimits = DEFAULT_PACKAGE_LIMITS): string {
  const entry = zip.file(name) as unknown as ZipEntry | null;
  if (!entry) return '';
  const bytes = boundedContent(entry, limits.maxExpandedBytes);
  if (!bytes) {
    throw new TemplateError('too_large', `The DOCX part ${name} is larger than ${Math.floor(limits.maxExpandedBytes / MiB)} MiB`);
  }
  return bytes.toString('utf8');
}

/**
 * An entry's content, or undefined when it is longer than maxBytes. A compressed entry is
 * inflated with zlib's output capped at maxBytes (zlib stops there, whatever the archive
 * declares); an entry already in memory (written by us) is returned as is.
 */
function boundedContent(entry: ZipEntry, maxBytes: number): Buffer | undefined {
  const data = entry._data;
  if (!data?.getCompressedContent) {
    const bytes = entry.asNodeBuffer();
    return bytes.length <= maxBytes ? bytes : undefined;
  }
  let raw: Uint8Array | string;
  try {
    raw = data.getCompressedContent();
  } catch {
    throw new TemplateError('invalid', 'The file is not a valid DOCX (the zip archive is damaged)');
  }
  const compressed = typeof raw === 'string' ? Buffer.from(raw, 'latin1') : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (data.compressionMethod === STORED || compressed.length === 0) return compressed.length <= maxBytes ? compressed : undefined;
  if (data.compressionMethod !== DEFLATED) {
    throw new TemplateError('invalid', 'The file is not a valid DOCX (the zip archive uses an unsupported compression method)');
  }
  try {
    // maxOutputLength must be at least 1; anything over maxBytes is refused below.
    const bytes = inflateRawSync(compressed, { maxOutputLength: Math.max(1, maxBytes) });
    return bytes.length <= maxBytes ? bytes : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return undefined;
    throw new TemplateError('invalid', 'The file is not a valid DOCX (the zip archive is damaged)');
  }
}

/** The parts whose text can hold tags: body, headers, footers, foot- and endnotes. */
export function templatedParts(zip: PizZip): string[] {
  return Object.keys(zip.files)
    .filter((name) => /^word\/(document|header\d*|footer\d*|footnotes|endnotes)\.xml$/.test(name))
    .sort((a, b) => partOrder(a) - partOrder(b) || a.localeCompare(b));
}

function partOrder(name: string): number {
  return ['document', 'header', 'footer', 'footnotes', 'endnotes'].findIndex((kind) => name.startsWith(`word/${kind}`));
}

/** "word/header2.xml" → "header". */
export function partLabel(name: string): string {
  const match = /^word\/([a-z]+)/.exec(name);
  const kind = match?.[1] ?? name;
  return kind === 'document' ? 'body' : kind;
}
