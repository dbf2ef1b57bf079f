import { inflateRawSync } from 'node:zlib';
import { DOMParser, onErrorStopParsing } from '@xmldom/xmldom';
import PizZip from 'pizzip';
import path from 'node:path';
import { DEFAULT_IMAGE_BOUNDS, imageBoundsProblem, isBitmapImage, isMeasurablePicture, type ImageBounds } from './image-bounds';
import { xmlText } from './package-links';
import { TemplateError } from './template-error';
import { refuseForeignEncoding } from './xml-encoding';
import { DEFLATED, STORED, partBytes, zipInput, type ZipEntry } from './zip-entry';

export interface PackageLimits {
  /** Largest total size of the unzipped parts. */
  maxExpandedBytes: number;
  maxEntries: number;
  /**
   * MAX_TEMPLATE_PART_BYTES: largest XML part (document, header, styles...), whose parsing
   * costs memory and time in proportion; pictures are bounded by `images` instead. Unset for
   * templates already stored, which were checked when they were uploaded.
   */
  maxPartBytes?: number;
  /** MAX_IMAGE_PIXELS and MAX_IMAGE_FRAMES for the pictures the package holds. */
  images?: ImageBounds;
}

export const DEFAULT_MAX_PART_BYTES = 5 * 1024 * 1024;

export const DEFAULT_PACKAGE_LIMITS: PackageLimits = {
  maxExpandedBytes: 100 * 1024 * 1024,
  maxEntries: 5_000,
  maxPartBytes: DEFAULT_MAX_PART_BYTES,
  images: DEFAULT_IMAGE_BOUNDS,
};

const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const OLE_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
// Password-protected DOCX files are OLE containers with an "EncryptedPackage" stream.
const ENCRYPTED_PACKAGE_NAME = Buffer.from('EncryptedPackage', 'utf16le');

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
    checkPart(entry.name, bytes, limits);
    remaining -= bytes.length;
  }
  if (!zip.file('word/document.xml') || !zip.file('[Content_Types].xml')) {
    throw new TemplateError('invalid', 'The file is not a valid DOCX (word/document.xml is missing)');
  }
  if (limits.images) refuseUnmeasurablePictures(zip);
  return zip;
}

/**
 * What one part may be, whatever its name: XML only in UTF-8 or UTF-16 (xml-encoding.ts), no
 * larger than maxPartBytes, and a picture no larger in pixels or frames than `images` allows,
 * read from its headers before LibreOffice decodes it.
 */
function checkPart(name: string, bytes: Buffer, limits: PackageLimits): void {
  // The first bytes tell XML from binary and hold the declaration; the part is read whole later.
  const head = xmlText(name, bytes.subarray(0, 1024));
  refuseForeignEncoding(name, bytes, head);
  if (head !== undefined && limits.maxPartBytes !== undefined && bytes.length > limits.maxPartBytes) {
    throw new TemplateError(
      'too_large',
      `The DOCX part ${name} is ${(bytes.length / MiB).toFixed(1)} MiB; parts of at most ${(limits.maxPartBytes / MiB).toFixed(1)} MiB are accepted (MAX_TEMPLATE_PART_BYTES)`,
    );
  }
  if (limits.images && isBitmapImage(bytes)) {
    const problem = imageBoundsProblem(bytes, limits.images);
    if (problem) throw new TemplateError('invalid', `The picture ${name} ${problem}; make it smaller and upload the template again`);
  }
}

/**
 * Every picture (a part with an image content type, or the target of an image relationship)
 * must be in a format whose size we can read (checkPart bounded the bitmaps among them), or
 * SVG text (an XML part, checked as XML): a PCX or PSD named image1.png is sniffed and
 * decoded by LibreOffice, unmeasured.
 */
function refuseUnmeasurablePictures(zip: PizZip): void {
  const pictures = new Set(imageRelationshipTargets(zip));
  for (const [name, type] of partContentTypes(zip)) if (type.toLowerCase().startsWith('image/')) pictures.add(name);
  for (const name of pictures) {
    const entry = zip.file(name);
    if (!entry || entry.dir) continue;
    const bytes = partBytes(entry);
    if (isMeasurablePicture(bytes) || xmlText(name, bytes.subarray(0, 1024)) !== undefined) continue;
    throw new TemplateError(
      'invalid',
      `The picture ${name} is in a format docgen cannot check; use PNG, JPEG, GIF, BMP, TIFF, WebP, EMF, WMF or SVG and upload the template again`,
    );
  }
}

/** The parts that relationships of an image type point at, resolved inside the package. */
function imageRelationshipTargets(zip: PizZip): string[] {
  const targets: string[] = [];
  for (const name of Object.keys(zip.files)) {
    if (zip.files[name]!.dir || !/\.rels$/i.test(name)) continue;
    let document;
    try {
      document = new DOMParser({ onError: onErrorStopParsing }).parseFromString(zip.file(name)!.asText(), 'text/xml');
    } catch {
      continue; // refused as malformed XML by the checks that follow
    }
    const base = name.replace(/(^|\/)_rels\/[^/]*$/, '$1');
    for (const relationship of Array.from(document.getElementsByTagNameNS('*', 'Relationship'))) {
      if (!/\/image$/i.test(relationship.getAttribute('Type') ?? '')) continue;
      let target = relationship.getAttribute('Target') ?? '';
      try {
        target = decodeURIComponent(target);
      } catch {
        // left as written: such a target is dropped as pointing outside the package
      }
      targets.push(path.posix.normalize(target.startsWith('/') ? target.slice(1) : `${base}${target}`));
    }
  }
  return targets;
}

/**
 * The package again with every part stored rather than deflated, opened with the limits of
 * openDocxPackage. A fill reads the parts it templates and the render's checks read every
 * part: from a stored package none of them is inflated again for each document, which took a
 * real Word template's fill from 7.0 to 6.1 ms for a PDF (`npm run bench:fill`).
 */
export function storedDocxPackage(file: Buffer, limits: PackageLimits = DEFAULT_PACKAGE_LIMITS): Buffer {
  const zip = openDocxPackage(file, limits);
  // Every part written again from the bytes openDocxPackage checked (inflated by zlib, as there),
  // so that its checksum is computed here rather than copied from the upload, where nothing
  // checked it: a render copies a part it leaves unread out with the checksum it has in this
  // package (zip-entry.ts).
  for (const entry of Object.values(zip.files) as unknown as ZipEntry[]) {
    if (!entry.dir) zip.file(entry.name, zipInput(boundedContent(entry, limits.maxExpandedBytes)!));
  }
  return zip.generate({ type: 'nodebuffer', compression: 'STORE' });
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

// The content types docxtemplater fills in a DOCX (its filetypes.js), with the label each part gets in messages.
const TEMPLATED_CONTENT_TYPES: Record<string, string> = {
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml': 'body',
  'application/vnd.ms-word.document.macroEnabled.main+xml': 'body',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml': 'body',
  'application/vnd.ms-word.template.macroEnabledTemplate.main+xml': 'body',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml': 'header',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml': 'footer',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml': 'footnotes',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml': 'comments',
};
const LABEL_ORDER = ['body', 'header', 'footer', 'footnotes', 'endnotes', 'comments'];

/**
 * The parts whose text can hold tags, by what they are, not what they are called: every part
 * [Content_Types].xml gives a type docxtemplater fills (an Override by part name, else a
 * Default by extension, as docxtemplater reads them), so a header stored as
 * "word/header1.bin" is scanned like any other; and, by name, the usual parts (endnotes are
 * not filled, but a tag there is still reported).
 */
export function templatedParts(zip: PizZip): string[] {
  const types = partContentTypes(zip);
  // docxtemplater's own reading too (docxtemplater/js/get-content-types.js): a Default matches
  // any name that ends with its Extension, the first one wins, and the first character of a
  // PartName is dropped whatever it is. A part either reading templates is scanned.
  const theirs = docxtemplaterContentTypes(zip);
  const templated = (name: string) => Boolean(TEMPLATED_CONTENT_TYPES[types.get(name) ?? ''] || TEMPLATED_CONTENT_TYPES[theirs.get(name) ?? '']);
  return Object.keys(zip.files)
    .filter((name) => !zip.files[name]!.dir && (templated(name) || USUAL_NAMES.test(name)))
    .sort((a, b) => LABEL_ORDER.indexOf(partLabel(a, types)) - LABEL_ORDER.indexOf(partLabel(b, types)) || a.localeCompare(b));
}

const USUAL_NAMES = /^word\/(document|header\d*|footer\d*|footnotes|endnotes)\.xml$/;

/** Each part's content type as [Content_Types].xml declares it (Override, else Default by extension). */
export function partContentTypes(zip: PizZip): Map<string, string> {
  const declarations = zip.file('[Content_Types].xml')?.asText() ?? '';
  let document;
  try {
    document = new DOMParser({ onError: onErrorStopParsing }).parseFromString(declarations, 'text/xml');
  } catch {
    throw new TemplateError('invalid', 'The DOCX part [Content_Types].xml is not well-formed XML; open the file in Word, save it again and upload it');
  }
  const defaults = new Map<string, string>();
  const overrides = new Map<string, string>();
  for (const element of Array.from(document.getElementsByTagNameNS('*', 'Default'))) {
    defaults.set((element.getAttribute('Extension') ?? '').toLowerCase(), element.getAttribute('ContentType') ?? '');
  }
  for (const element of Array.from(document.getElementsByTagNameNS('*', 'Override'))) {
    overrides.set((element.getAttribute('PartName') ?? '').replace(/^\//, ''), element.getAttribute('ContentType') ?? '');
  }
  const types = new Map<string, string>();
  for (const name of Object.keys(zip.files)) {
    const type = overrides.get(name) ?? defaults.get(name.split('.').pop()!.toLowerCase());
    if (type) types.set(name, type);
  }
  return types;
}

/** Each part's content type exactly as docxtemplater 3.x reads [Content_Types].xml. */
function docxtemplaterContentTypes(zip: PizZip): Map<string, string> {
  const document = new DOMParser({ onError: onErrorStopParsing }).parseFromString(zip.file('[Content_Types].xml')?.asText() ?? '<Types/>', 'text/xml');
  const types = new Map<string, string>();
  for (const override of Array.from(document.getElementsByTagName('Override'))) {
    types.set((override.getAttribute('PartName') ?? '').slice(1), override.getAttribute('ContentType') ?? '');
  }
  const defaults = Array.from(document.getElementsByTagName('Default'));
  for (const name of Object.keys(zip.files)) {
    if (types.has(name) || name === '[Content_Types].xml') continue;
    const match = defaults.find((entry) => name.endsWith(entry.getAttribute('Extension') ?? '\u0000'));
    if (match) types.set(name, match.getAttribute('ContentType') ?? '');
  }
  return types;
}

/** "word/header2.xml" → "header"; a part named otherwise is labelled by its content type. */
export function partLabel(name: string, types?: Map<string, string>): string {
  const byType = types && TEMPLATED_CONTENT_TYPES[types.get(name) ?? ''];
  if (byType) return byType;
  const match = /^word\/([a-z]+)/.exec(name);
  const kind = match?.[1] ?? name;
  return kind === 'document' ? 'body' : kind;
}
