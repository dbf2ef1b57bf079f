import { TemplateError } from './template-error';

/**
 * How an XML reader (LibreOffice's, libxml2's) auto-detects an encoding from a part's first
 * bytes when there is no byte order mark (XML 1.0, appendix F): UCS-4 in any byte order, and
 * EBCDIC. Our checks read UTF-8 and UTF-16 only, so a part in any of these would be read by
 * LibreOffice as XML that no check of ours has seen.
 */
const FOREIGN_SIGNATURES = [
  [0x00, 0x00, 0x00, 0x3c],
  [0x3c, 0x00, 0x00, 0x00],
  [0x00, 0x00, 0x3c, 0x00],
  [0x00, 0x3c, 0x00, 0x00],
  [0x4c, 0x6f, 0xa7, 0x94], // "<?xm" in EBCDIC
  [0x00, 0x00, 0xfe, 0xff], // UCS-4 byte order marks
  [0xff, 0xfe, 0x00, 0x00],
];

const DECLARATION_START = /^\uFEFF?\s*<\?xml\s/;
const ENCODING = /\bencoding\s*=\s*["']([^"']*)["']/;
const UTF8 = /^utf-?8$/i;
const UTF16 = /^utf-?16(?:le|be)?$/i;

/**
 * Refuses an XML part that declares, or is written in, any encoding other than UTF-8 or
 * UTF-16: a part declaring `encoding="UTF-7"` (or ISO-2022, EBCDIC, UCS-4) reads as harmless
 * text to a UTF-8 reader while LibreOffice decodes it into relationships, fields and links
 * that every check would miss. `text` is the part as our checks read it (xmlText).
 */
export function refuseForeignEncoding(name: string, bytes: Buffer, text: string | undefined): void {
  const head = [...bytes.subarray(0, 4)];
  if (FOREIGN_SIGNATURES.some((signature) => signature.every((byte, i) => head[i] === byte))) throw foreign(name, 'is written in UCS-4 or EBCDIC');
  if (text === undefined || !DECLARATION_START.test(text)) return;
  // The whole declaration, however much whitespace pads it: a cut-off one could hide its encoding.
  const end = text.indexOf('?>');
  if (end < 0) throw foreign(name, 'has an XML declaration longer than 1 KB');
  const declared = ENCODING.exec(text.slice(0, end))?.[1];
  if (declared === undefined) return;
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff) || bytes[0] === 0x00 || bytes[1] === 0x00;
  if (!(utf16 ? UTF16 : UTF8).test(declared.trim())) throw foreign(name, `declares the encoding ${JSON.stringify(declared.slice(0, 40))}`);
}

const foreign = (name: string, what: string) =>
  new TemplateError('invalid', `The DOCX part ${name} ${what}; only UTF-8 and UTF-16 are accepted: open the file in Word, save it again and upload it`);
