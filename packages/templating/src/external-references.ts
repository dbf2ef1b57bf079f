import PizZip from 'pizzip';
import { fetchingFieldsIn, UnreadableFieldsError } from './field-instructions';
import { TemplateError } from './template-error';

const HYPERLINK_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink';
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const RELATIONSHIP = /<Relationship\b[^>]*\/>|<Relationship\b[^>]*>[\s\S]*?<\/Relationship>/g;

/**
 * The DOCX must not point anywhere LibreOffice (or Word)
 * would fetch when the template is rendered. External relationships other than hyperlinks are
 * removed with the attributes that use them. Fields that fetch or link (INCLUDEPICTURE,
 * INCLUDETEXT, LINK, DDE, DDEAUTO: see field-instructions.ts) are refused rather than cut out:
 * a template that pulls in another file, address or program at render time is refused at
 * upload with a message, since cutting a complex field apart safely is not simple. The
 * instruction is read whole, however many runs Word split it into.
 */
export function removeExternalReferences(docx: Buffer): Buffer {
  const zip = new PizZip(docx);
  for (const [name, entry] of Object.entries(zip.files)) {
    if (entry.dir) continue;
    const xml = xmlText(name, entry.asNodeBuffer());
    if (xml !== undefined) refuseFetchingFields(name, xml);
  }
  return dropExternalRelationships(zip) ? zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }) : docx;
}

/**
 * The fetching fields of a filled package's XML parts. A value cannot add field markup (it
 * is written as escaped text), but a tag placed inside a field code can complete one: the
 * template `{x}` between a field's begin and separate becomes INCLUDEPICTURE with the right
 * value. So a render checks its filled parts again; parts without field markup cost a regex.
 */
export function fetchingFieldsAfterFill(zip: PizZip): string[] {
  const found = new Set<string>();
  for (const [name, entry] of Object.entries(zip.files)) {
    if (entry.dir || !name.endsWith('.xml')) continue;
    for (const field of fetchingFieldsIn(entry.asText())) found.add(field);
  }
  return [...found];
}

/** Removes external relationships (other than hyperlinks) from a package in memory; true when it changed anything. */
export function dropExternalRelationships(zip: PizZip): boolean {
  let changed = false;
  for (const name of Object.keys(zip.files)) {
    if (!name.endsWith('.rels') || zip.files[name]!.dir) continue;
    const rels = zip.file(name)?.asText() ?? '';
    const removedIds: string[] = [];
    const kept = rels.replace(RELATIONSHIP, (relationship) => {
      if (!/\bTargetMode="External"/.test(relationship) || relationship.includes(`Type="${HYPERLINK_TYPE}"`)) return relationship;
      removedIds.push(/\bId="([^"]+)"/.exec(relationship)?.[1] ?? '');
      return '';
    });
    if (removedIds.length === 0) continue;
    zip.file(name, kept);
    dropReferences(zip, sourcePartOf(name), removedIds);
    changed = true;
  }
  return changed;
}

/**
 * A part's text when it is (or may be) XML, whatever its name: LibreOffice follows the package's
 * relationships to a part, so a main document stored as "word/doc.dat", or saved as UTF-16, is
 * read all the same. Binary parts (images, fonts) are skipped.
 */
function xmlText(name: string, bytes: Buffer): string | undefined {
  const [b0, b1] = [bytes[0], bytes[1]];
  const even = bytes.subarray(0, bytes.length - (bytes.length % 2));
  if ((b0 === 0xff && b1 === 0xfe) || (b0 === 0x3c && b1 === 0x00)) return even.toString('utf16le').replace(/^\uFEFF/, '');
  if ((b0 === 0xfe && b1 === 0xff) || (b0 === 0x00 && b1 === 0x3c)) return Buffer.from(even).swap16().toString('utf16le').replace(/^\uFEFF/, '');
  const bom = b0 === 0xef && b1 === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let first = bom;
  while (first < bytes.length && WHITESPACE.has(bytes[first]!)) first++;
  if (bytes[first] !== 0x3c && !/\.(xml|rels)$/i.test(name)) return undefined;
  return bytes.toString('utf8', bom);
}

function refuseFetchingFields(name: string, xml: string): void {
  let fields: string[];
  try {
    fields = fetchingFieldsIn(xml);
  } catch (error) {
    if (!(error instanceof UnreadableFieldsError)) throw error;
    throw new TemplateError('invalid', `The DOCX part ${name} is not well-formed XML, so its fields cannot be checked; open the file in Word, save it again and upload it`);
  }
  if (fields.length === 0) return;
  const names = fields.join(', ');
  throw new TemplateError(
    'invalid',
    `The template includes content from another file, address or program (${fields.length === 1 ? `${/^[AEIOU]/.test(names) ? 'an' : 'a'} ${names} field` : `${names} fields`}); remove ${fields.length === 1 ? 'it' : 'them'} and upload again`,
  );
}

// "word/_rels/document.xml.rels" describes "word/document.xml".
function sourcePartOf(relsName: string): string {
  return relsName.replace(/(^|\/)_rels\/([^/]+)\.rels$/, '$1$2');
}

function dropReferences(zip: PizZip, partName: string, ids: string[]): void {
  const part = zip.file(partName);
  if (!part) return;
  let xml = part.asText();
  for (const id of ids.filter(Boolean)) {
    xml = xml.split(new RegExp(`\\s[\\w]+:(?:id|link|embed|href)="${escapeRegExp(id)}"`, 'g')).join('');
  }
  zip.file(partName, xml);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
