import path from 'node:path';
import { DOMParser, XMLSerializer, onErrorStopParsing, type Document, type Element } from '@xmldom/xmldom';
import type PizZip from 'pizzip';
import { TemplateError } from './template-error';
import { rememberedByText } from './remembered';
import { partBytes } from './zip-entry';

const RELATIONSHIP_ATTRIBUTE_NAMESPACES = new Set([
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  'http://purl.oclc.org/ooxml/officeDocument/relationships',
]);
// Relationship types whose whole purpose is to pull in another document (an altChunk is
// imported as HTML/MHT/RTF, a subdocument or template is opened, a mail-merge source is read):
// never kept, even when their target lies inside the package.
const PULLING_TYPES = /\/(?:aFChunk|subDocument|attachedTemplate|frame|mailMergeSource|mailMergeHeaderSource|mailMergeRecipientData)$/;
// The elements that use those relationships (and a mail merge's connection string and query):
// removed whole, so nothing is left half-pointing anywhere.
const PULLING_ELEMENTS = new Set(['altChunk', 'subDoc', 'attachedTemplate', 'mailMerge']);
const HYPERLINK_TYPE = /\/hyperlink$/;
// Only what a reader clicks: LibreOffice never opens a hyperlink's target while converting.
const CLICKABLE_TARGET = /^(?:https?:\/\/|mailto:)/i;
// The elements that may use a kept external hyperlink; an image or OLE object pointing at one would be fetched.
const HYPERLINK_ELEMENTS = new Set(['hyperlink', 'hlinkClick', 'hlinkHover', 'hlinkMouseOver']);
// Attributes that hold a location rather than a relationship id (VML o:href, v:imagedata src,
// r:link): every one of them is removed, whatever its namespace.
const LOCATION_ATTRIBUTES = new Set(['href', 'src', 'link']);
// Attribute names cannot be written with character references, so a part without these is
// left alone (and not parsed, which keeps renders cheap).
const MAY_POINT_OUTSIDE = /(?:href|src|link)\s*=|mailMerge|altChunk|subDoc|attachedTemplate/;
const DOCTYPE = /<!DOCTYPE|<!ENTITY/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Refuses a package with a DOCTYPE (or entity declaration) in any of its XML parts: no part
 * of a DOCX needs one, and an XML reader that resolves them can be made to read local files
 * or fetch URLs (XXE).
 */
export function refuseDocumentTypeDeclarations(zip: PizZip): void {
  refuseDeclarationsIn(xmlTexts(zip));
}

function refuseDeclarationsIn(texts: Map<string, string>): void {
  for (const [name, xml] of texts) {
    if (DOCTYPE.test(xml)) {
      throw new TemplateError(
        'invalid',
        `The DOCX part ${name} declares a DOCTYPE or entities, which no DOCX needs; open the file in Word, save it again and upload it`,
      );
    }
  }
}

/** The text of every part that is (or may be) XML (xmlText), by name. */
function xmlTexts(zip: PizZip): Map<string, string> {
  const texts = new Map<string, string>();
  for (const [name, entry] of Object.entries(zip.files)) {
    if (entry.dir) continue;
    const xml = xmlText(name, partBytes(entry));
    if (xml !== undefined) texts.set(name, xml);
  }
  return texts;
}

/**
 * Refuses a package whose XML parts (by name) are not well-formed, naming the part, before
 * anything else (docxtemplater included) reads them and fails in its own words.
 */
export function refuseMalformedXml(zip: PizZip): void {
  for (const required of ['[Content_Types].xml', '_rels/.rels']) {
    if (!zip.file(required))
      throw new TemplateError('invalid', `The file is not a valid DOCX (${required} is missing); open it in Word, save it again and upload it`);
  }
  for (const [name, entry] of Object.entries(zip.files)) {
    if (entry.dir || !/\.(xml|rels)$/i.test(name)) continue;
    // Read as UTF-8, the way docxtemplater reads it: a UTF-16 part is refused here too.
    parseXml(name, entry.asNodeBuffer().toString('utf8'));
  }
  refuseIncompleteContentTypes(zip);
}

/**
 * xmldom only warns about an attribute without a value (`<Default Ext ension="xml"/>`), and
 * docxtemplater then crashes on the Default that has no Extension (a 500 found by the upload
 * fuzz test): every Default and Override must carry both of its attributes.
 */
function refuseIncompleteContentTypes(zip: PizZip): void {
  const document = parseXml('[Content_Types].xml', zip.file('[Content_Types].xml')!.asNodeBuffer().toString('utf8'));
  const required: [string, string[]][] = [
    ['Default', ['Extension', 'ContentType']],
    ['Override', ['PartName', 'ContentType']],
  ];
  for (const [element, attributes] of required) {
    for (const type of elementsNamed(document, element)) {
      const missing = attributes.find((attribute) => !type.hasAttribute(attribute));
      if (missing) {
        throw new TemplateError(
          'invalid',
          `The DOCX part [Content_Types].xml has ${element === 'Override' ? 'an' : 'a'} ${element} without ${missing}; open the file in Word, save it again and upload it`,
        );
      }
    }
  }
}

/**
 * Makes the package self-contained, reading every relationships part with an XML parser:
 * a relationship is kept only when it is internal by the OPC definition (no TargetMode, or
 * exactly "Internal", and a relative target that stays inside the package) and does not
 * pull in another document; external hyperlinks to http(s) or mailto are kept for the
 * elements that make links clickable, and nothing else may use them. Attributes that refer
 * to a dropped relationship, and every attribute holding a location (r:link, o:href, src),
 * are removed from the parts, as is a mail-merge data source. Returns true when it changed
 * anything. Throws TemplateError('invalid') for a DOCTYPE or a part that is not XML.
 */
export function makePackageSelfContained(zip: PizZip): boolean {
  const texts = xmlTexts(zip);
  refuseDeclarationsIn(texts);
  const dropped = new Map<string, ReadonlySet<string>>();
  const hyperlinkOnly = new Map<string, ReadonlySet<string>>();
  let changed = false;

  for (const name of Object.keys(zip.files)) {
    if (zip.files[name]!.dir || !/\.rels$/i.test(name)) continue;
    const xml = texts.get(name) ?? '';
    const judged = judgedRelationships(name, xml);
    if (judged.dropped.size > 0) {
      zip.file(name, withoutRelationships(name, xml, judged.dropped));
      changed = true;
    }
    // Part names are compared without case (OPC): two relationships parts for one source both count.
    const source = sourcePartOf(name).toLowerCase();
    dropped.set(source, union(dropped.get(source), judged.dropped));
    hyperlinkOnly.set(source, union(hyperlinkOnly.get(source), judged.hyperlinkOnly));
  }

  for (const name of Object.keys(zip.files)) {
    if (zip.files[name]!.dir || /\.rels$/i.test(name) || name === '[Content_Types].xml') continue;
    const droppedIds = dropped.get(name.toLowerCase()) ?? new Set<string>();
    const hyperlinkIds = hyperlinkOnly.get(name.toLowerCase()) ?? new Set<string>();
    const xml = texts.get(name);
    if (xml === undefined) continue;
    if (droppedIds.size === 0 && hyperlinkIds.size === 0 && !MAY_POINT_OUTSIDE.test(xml)) continue;
    // A part that is not XML whatever it starts with (an altChunk's HTML, a text file) is not
    // read as XML by LibreOffice either; what references it was judged above.
    if (!/\.(xml|rels)$/i.test(name) && !isWellFormed(xml)) continue;
    const document = parseXml(name, xml);
    if (removeOutsideReferences(document, droppedIds, hyperlinkIds)) {
      zip.file(name, serialize(document));
      changed = true;
    }
  }
  return changed;
}

interface JudgedRelationships {
  /** Ids of the relationships to remove, and of those kept only for clickable elements. */
  dropped: ReadonlySet<string>;
  hyperlinkOnly: ReadonlySet<string>;
}

/**
 * A relationships part judged relationship by relationship (judgeRelationship), remembered by
 * its name and text: a template's relationships are the same for every document, and parsing
 * them again was most of a render's package check. Only the ids are kept (a template as stored
 * has nothing left to drop; a part that has is rewritten by withoutRelationships).
 */
const judgedRelationships = (() => {
  const remembered = rememberedByText((key) => {
    const nameLength = Number(key.slice(0, key.indexOf(':')));
    const start = key.indexOf(':') + 1;
    return judgeRelationshipsPart(key.slice(start, start + nameLength), key.slice(start + nameLength));
  }, 1024 * 1024);
  // The name's length first: no name (a hostile one may hold any character) can run into the text.
  return (name: string, xml: string) => remembered(`${name.length}:${name}${xml}`);
})();

function judgeRelationshipsPart(name: string, xml: string): JudgedRelationships {
  const baseDir = path.posix.dirname(sourcePartOf(name));
  const dropped = new Set<string>();
  const hyperlinkOnly = new Set<string>();
  for (const relationship of elementsNamed(parseXml(name, xml), 'Relationship')) {
    const verdict = judgeRelationship(relationship, baseDir);
    if (verdict === 'keep') continue;
    (verdict === 'hyperlink' ? hyperlinkOnly : dropped).add(relationship.getAttribute('Id') ?? '');
  }
  return { dropped, hyperlinkOnly };
}

/** The relationships part without the relationships of these ids. */
function withoutRelationships(name: string, xml: string, ids: ReadonlySet<string>): string {
  const document = parseXml(name, xml);
  for (const relationship of elementsNamed(document, 'Relationship')) {
    if (ids.has(relationship.getAttribute('Id') ?? '')) relationship.parentNode?.removeChild(relationship);
  }
  return serialize(document);
}

const union = (known: ReadonlySet<string> | undefined, more: ReadonlySet<string>): ReadonlySet<string> =>
  known === undefined || known.size === 0 ? more : more.size === 0 ? known : new Set([...known, ...more]);

type Verdict = 'keep' | 'hyperlink' | 'drop';

function judgeRelationship(relationship: Element, baseDir: string): Verdict {
  const modes = attributesNamed(relationship, 'TargetMode');
  const targets = attributesNamed(relationship, 'Target');
  const type = relationship.getAttribute('Type') ?? '';
  if (targets.length !== 1 || PULLING_TYPES.test(type)) return 'drop';
  const target = targets[0]!;
  if (modes.every((mode) => mode === 'Internal')) return isInsidePackage(target, baseDir) ? 'keep' : 'drop';
  if (modes.length === 1 && modes[0] === 'External' && HYPERLINK_TYPE.test(type) && CLICKABLE_TARGET.test(target) && !/[\s\\]/.test(target)) {
    return 'hyperlink';
  }
  return 'drop';
}

/**
 * True for a relative reference (or a package-absolute part name) that resolves inside the
 * package: no scheme (http:, file:, a drive letter), no network path (//host, \\host), no
 * backslash or control character, and no ".." climbing above the package root, before or
 * after percent-decoding.
 */
export function isInsidePackage(target: string, baseDir: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    return false;
  }
  for (const form of [target, decoded]) {
    const trimmed = form.trim();
    // eslint-disable-next-line no-control-regex -- a control character in a target is refused on purpose
    if (trimmed === '' || SCHEME.test(trimmed) || trimmed.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(form)) return false;
  }
  const start = decoded.startsWith('/') ? [] : baseDir.split('/').filter((segment) => segment && segment !== '.');
  const segments = [...start];
  for (const segment of decoded.split('/')) {
    if (segment === '..') {
      if (segments.length === 0) return false;
      segments.pop();
    } else if (segment && segment !== '.') segments.push(segment);
  }
  return segments.length > 0;
}

function removeOutsideReferences(document: Document, droppedIds: ReadonlySet<string>, hyperlinkIds: ReadonlySet<string>): boolean {
  let changed = false;
  const pending: Element[] = document.documentElement ? [document.documentElement] : [];
  while (pending.length > 0) {
    const element = pending.pop()!;
    if (PULLING_ELEMENTS.has(element.localName ?? element.nodeName)) {
      element.parentNode?.removeChild(element);
      changed = true;
      continue;
    }
    for (let i = element.attributes.length - 1; i >= 0; i--) {
      const attribute = element.attributes.item(i)!;
      const local = attribute.localName ?? attribute.name;
      const usesRelationship = RELATIONSHIP_ATTRIBUTE_NAMESPACES.has(attribute.namespaceURI ?? '') || local === 'relid';
      const outside =
        LOCATION_ATTRIBUTES.has(local) ||
        (usesRelationship && droppedIds.has(attribute.value)) ||
        (usesRelationship && hyperlinkIds.has(attribute.value) && !HYPERLINK_ELEMENTS.has(element.localName ?? ''));
      if (outside) {
        element.removeAttributeNode(attribute);
        changed = true;
      }
    }
    for (let child = element.lastChild; child; child = child.previousSibling) {
      if (child.nodeType === child.ELEMENT_NODE) pending.push(child as Element);
    }
  }
  return changed;
}

export function parseXml(name: string, xml: string): Document {
  try {
    return new DOMParser({ onError: onErrorStopParsing }).parseFromString(xml, 'text/xml');
  } catch {
    throw new TemplateError('invalid', `The DOCX part ${name} is not well-formed XML; open the file in Word, save it again and upload it`);
  }
}

// Written back as UTF-8 whatever the part was read as, so its declaration must say so.
export function serialize(document: Document): string {
  return new XMLSerializer().serializeToString(document).replace(/^<\?xml[^>]*\?>/, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>');
}

function isWellFormed(xml: string): boolean {
  try {
    new DOMParser({ onError: onErrorStopParsing }).parseFromString(xml, 'text/xml');
    return true;
  } catch {
    return false;
  }
}

function elementsNamed(document: Document, localName: string): Element[] {
  return Array.from(document.getElementsByTagNameNS('*', localName));
}

function attributesNamed(element: Element, localName: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < element.attributes.length; i++) {
    const attribute = element.attributes.item(i)!;
    if ((attribute.localName ?? attribute.name) === localName) values.push(attribute.value);
  }
  return values;
}

// "word/_rels/document.xml.rels" describes "word/document.xml"; "_rels/.rels" the package itself.
function sourcePartOf(relsName: string): string {
  return relsName.replace(/(^|\/)_rels\/([^/]*)\.rels$/i, '$1$2');
}

/**
 * A part's text when it is (or may be) XML, whatever its name: LibreOffice follows the package's
 * relationships to a part, so a main document stored as "word/doc.dat", or saved as UTF-16, is
 * read all the same. Binary parts (images, fonts) are skipped.
 */
export function xmlText(name: string, bytes: Buffer): string | undefined {
  const [b0, b1] = [bytes[0], bytes[1]];
  const even = bytes.subarray(0, bytes.length - (bytes.length % 2));
  if ((b0 === 0xff && b1 === 0xfe) || (b0 === 0x3c && b1 === 0x00)) return even.toString('utf16le').replace(/^\uFEFF/, '');
  if ((b0 === 0xfe && b1 === 0xff) || (b0 === 0x00 && b1 === 0x3c))
    return Buffer.from(even)
      .swap16()
      .toString('utf16le')
      .replace(/^\uFEFF/, '');
  const bom = b0 === 0xef && b1 === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let first = bom;
  while (first < bytes.length && WHITESPACE.has(bytes[first]!)) first++;
  if (bytes[first] !== 0x3c && !/\.(xml|rels)$/i.test(name)) return undefined;
  return bytes.toString('utf8', bom);
}
