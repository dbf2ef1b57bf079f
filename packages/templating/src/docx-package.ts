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

interface ZipEntry {
  dir: boolean;
  _data?: { uncompressedSize?: number };
}

/**
 * Opens an uploaded DOCX without trusting it: refuses OLE files (legacy .doc, encrypted
 * DOCX) with a message saying what to do, and zip bombs by the sizes the archive declares
 * before anything is inflated.
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
      `The DOCX expands to ${Math.ceil(expanded / 1024 / 1024)} MiB when unzipped; the limit is ${Math.floor(limits.maxExpandedBytes / 1024 / 1024)} MiB`,
    );
  }
  if (!zip.file('word/document.xml') || !zip.file('[Content_Types].xml')) {
    throw new TemplateError('invalid', 'The file is not a valid DOCX (word/document.xml is missing)');
  }
  return zip;
}

/** Reads a part, checking its real inflated size too: declared sizes can lie. */
export function readPart(zip: PizZip, name: string, limits: PackageLimits = DEFAULT_PACKAGE_LIMITS): string {
  const text = zip.file(name)?.asText() ?? '';
  if (text.length > limits.maxExpandedBytes) {
    throw new TemplateError('too_large', `The DOCX part ${name} is larger than ${Math.floor(limits.maxExpandedBytes / 1024 / 1024)} MiB`);
  }
  return text;
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
