import PizZip from 'pizzip';
import { partBytes, zipInput, zipOutput } from '../zip-entry';

const BODY_PART = 'word/document.xml';
/**
 * What would count across the batch rather than within a document (a list, its notes, its
 * comments, line numbers), or point or flow into another document (an internal link, linked
 * text boxes, whose text runs on into the next box of the chain): a body or header with any of
 * these converts alone. The bridge checks the loaded batch's fields again, however the XML
 * spelt them (convert_server.py's refuse_shared_content). Fields are checked apart (PER_DOCUMENT_FIELDS).
 */
// Each pattern with `[^>]*` starts at a tag's `<`: started at a word, a filled value repeating it would be scanned to its end once per repeat.
const COUNTS_ACROSS_DOCUMENTS =
  /<w:(numPr|footnoteReference|endnoteReference|commentReference|lnNumType|outlineLvl)\b|w:anchor=|linkedTxbx\b|<(\w+:)?txbx\b[^>]*\sid=|mso-next-textbox|<(\w+:)?textbox\b[^>]*&#/;
/** The fields whose value is the same in a batch as alone; any other (NUMPAGES, SEQ, REF, TOC…) counts or points across documents. */
const PER_DOCUMENT_FIELDS = new Set(['PAGE', 'DATE', 'TIME', 'CREATEDATE', 'SAVEDATE', 'PRINTDATE', 'AUTHOR', 'TITLE', 'SUBJECT']);
/** A filled body this long (characters of XML) or longer converts alone: it gains little, and would hold its batch-mates as long. */
const MAX_BATCHED_BODY = 256 * 1024;

/** A drawing or VML shape positioned against the page (or its margins) rather than its paragraph. */
const PLACED_ON_PAGE = /relativeFrom=["'](page|margin|topMargin|bottomMargin|insideMargin|outsideMargin)["']|-relative:\s*(page|margin)/;

/** WordprocessingML, transitional and strict. */
const WORDPROCESSINGML = new Set(['http://schemas.openxmlformats.org/wordprocessingml/2006/main', 'http://purl.oclc.org/ooxml/wordprocessingml/main']);

/** Elements that may follow pgNumType in a sectPr (ECMA-376 CT_SectPr). */
const AFTER_PAGE_NUMBERS = /<w:(cols|formProt|vAlign|noEndnote|titlePg|textDirection|bidi|rtlGutter|docGrid|printerSettings|sectPrChange)\b/;

/**
 * Several filled DOCX of one template as one document, for one LibreOffice call: its fixed
 * cost per call (most of a one-page PDF's, bench:batched-conversion) is paid once. Each
 * document's pages are then exported on their own (WarmConverterPool.convertParts).
 *
 * One DOCX holding `documents` in order, each in its own section: a next-page break carrying
 * the template's section properties with page numbers restarting at 1, and a bookmark
 * `marks[i]` at its start, where its pages begin; so each document is exactly one section
 * (convertParts' `sections`). Undefined when the documents cannot share a conversion: a part
 * other than the body differs (an image, a link added by the fill); the body is long, has
 * sections (or an imported chunk or subdocument, which can bring some), bookmarks or headings
 * of its own, or something that counts across documents (a field not in PER_DOCUMENT_FIELDS,
 * COUNTS_ACROSS_DOCUMENTS); it does not open with a plain paragraph; or the section
 * properties are not the plain kind this handles.
 */
export function batchDocx(documents: Buffer[], marks: string[]): Buffer | undefined {
  const zips = documents.map((docx) => new PizZip(zipInput(docx)));
  const first = zips[0]!;
  const otherParts = Object.keys(first.files).filter((name) => name !== BODY_PART && !first.files[name]!.dir);
  for (const zip of zips.slice(1)) {
    const names = Object.keys(zip.files).filter((name) => name !== BODY_PART && !zip.files[name]!.dir);
    if (names.length !== otherParts.length) return undefined;
    // Byte for byte: decoded as text, two different images could read the same.
    if (otherParts.some((name) => !zip.files[name] || !partBytes(zip.files[name]).equals(partBytes(first.files[name]!)))) return undefined;
  }
  const shared = (name: string) => (first.files[name] ? partBytes(first.files[name]).toString('utf8') : '');
  const readParts = otherParts.filter((name) => /^word\/(header\d*|footer\d*|styles|settings)\.xml$/.test(name));
  if (!readParts.every((name) => spelledWithW(shared(name)))) return undefined;
  if (otherParts.some((name) => /^word\/(header|footer)\d*\.xml$/.test(name) && countsAcrossDocuments(shared(name)))) return undefined;
  if (/<w:evenAndOddHeaders\b/.test(shared('word/settings.xml'))) return undefined;
  // A list numbered by style would count on from the previous document; the PDF's outline of headings could list the other documents'.
  const styles = shared('word/styles.xml');
  if (/<w:numPr\b/.test(styles)) return undefined;
  const outlineStyles = stylesWith(styles, /<w:outlineLvl\b/);
  // A first paragraph hidden or framed by its style would not hold its document's mark where its pages begin.
  const unmarkableStyles = stylesWith(styles, /<w:(vanish|specVanish|framePr)\b/);
  if (!outlineStyles || !unmarkableStyles) return undefined;

  const bodies: string[] = [];
  let head = '';
  let sectPr = '';
  let tail = '';
  for (const zip of zips) {
    const xml = partBytes(zip.files[BODY_PART]!).toString('utf8');
    if (!spelledWithW(xml)) return undefined;
    const bodyStart = xml.indexOf('>', xml.indexOf('<w:body')) + 1;
    const sectStart = xml.lastIndexOf('<w:sectPr');
    const sectEnd = xml.indexOf('</w:sectPr>', sectStart) + '</w:sectPr>'.length;
    if (bodyStart === 0 || sectStart < bodyStart || sectEnd < sectStart) return undefined;
    const body = xml.slice(bodyStart, sectStart);
    if (body.length >= MAX_BATCHED_BODY || /<w:(sectPr|bookmarkStart|altChunk|subDoc)\b/.test(body) || countsAcrossDocuments(body)) return undefined;
    if (paragraphStyles(body).some((style) => style === undefined || style.includes('&') || outlineStyles.has(style))) return undefined;
    // An object placed on the page rather than by its paragraph can make a page of its own, which the range of pages would miss.
    if (PLACED_ON_PAGE.test(body)) return undefined;
    bodies.push(body);
    [head, sectPr, tail] = [xml.slice(0, bodyStart), xml.slice(sectStart, sectEnd), xml.slice(sectEnd)];
  }
  const restarting = restartPageNumbers(sectPr);
  if (!restarting || /<w:type\b/.test(sectPr) || !restarting.includes('<w:pgSz')) return undefined;
  const sectionBreak = `<w:p><w:pPr>${restarting.replace('<w:pgSz', '<w:type w:val="nextPage"/><w:pgSz')}</w:pPr></w:p>`;
  const marked = bodies.map((body, i) =>
    markFirstParagraph(body, `<w:bookmarkStart w:id="${900_000 + i}" w:name="${marks[i]}"/><w:bookmarkEnd w:id="${900_000 + i}"/>`, unmarkableStyles),
  );
  if (marked.includes(undefined)) return undefined;
  first.file(BODY_PART, head + marked.join(sectionBreak) + restarting + tail);
  return zipOutput(first, 'STORE');
}

/**
 * Whether every WordprocessingML name in the part is spelt `w:`, so that the patterns here,
 * which read prefixes, see every element and attribute they look for: the namespace is bound
 * to `w` and to nothing else, `w` to nothing else, and no binding is spelt with a character reference.
 */
function spelledWithW(xml: string): boolean {
  for (const [, prefix, doubleQuoted, singleQuoted] of xml.matchAll(/\sxmlns(?::([^\s=]+))?\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const uri = doubleQuoted ?? singleQuoted!;
    if (uri.includes('&') || WORDPROCESSINGML.has(uri) !== (prefix === 'w')) return false;
  }
  return true;
}

/** A w: attribute's value in the first tag that has it, in either quotes; undefined when it has none or a character reference spells it. */
function attribute(xml: string, name: string): string | undefined {
  const value = new RegExp(`\\bw:${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(xml);
  return value ? (value[1] ?? value[2]) : undefined;
}

/**
 * The styles whose definition has `feature`, their own or that of one they are based on (at
 * any depth); undefined when a style's name or base cannot be read plainly (a character reference).
 */
function stylesWith(styles: string, feature: RegExp): Set<string> | undefined {
  const parsed = styles.split('</w:style>').map((style) => ({
    id: attribute(/<w:style\b[^>]*>/.exec(style)?.[0] ?? '', 'styleId'),
    basedOn: /<w:basedOn\b[^>]*>/.exec(style)?.[0],
    has: feature.test(style),
  }));
  const bases = new Map<string, string | undefined>();
  const found = new Set<string>();
  for (const { id, basedOn, has } of parsed) {
    if (id === undefined) continue; // the text after the last style
    const base = basedOn === undefined ? undefined : attribute(basedOn, 'val');
    if (id.includes('&') || (basedOn !== undefined && (base === undefined || base.includes('&')))) return undefined;
    bases.set(id, base);
    if (has) found.add(id);
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const [id, base] of bases) {
      if (!found.has(id) && base !== undefined && found.has(base)) {
        found.add(id);
        grew = true;
      }
    }
  }
  return found;
}

/** Every paragraph style the body names, as spelt (undefined for a tag without a name). */
function paragraphStyles(body: string): (string | undefined)[] {
  return [...body.matchAll(/<w:pStyle\b[^>]*>/g)].map((tag) => attribute(tag[0], 'val'));
}

function countsAcrossDocuments(xml: string): boolean {
  if (COUNTS_ACROSS_DOCUMENTS.test(xml) || !fieldsClosed(xml)) return true;
  return fieldInstructions(xml).some((instruction) => !PER_DOCUMENT_FIELDS.has(instruction.trim().split(/\s+/)[0]!.toUpperCase()));
}

/**
 * Every complex field that begins also ends (an unclosed one would swallow the documents after
 * it), its kinds spelt plainly (a character reference could hide one from the count).
 */
function fieldsClosed(xml: string): boolean {
  const kinds = [...xml.matchAll(/fldCharType\s*=\s*(["'])(.*?)\1/g)].map((match) => match[2]);
  return kinds.every((kind) => !kind!.includes('&')) && kinds.filter((kind) => kind === 'begin').length === kinds.filter((kind) => kind === 'end').length;
}

/** Each field's instruction: a simple field's, and a complex field's pieces (Word splits them across runs) joined. */
function fieldInstructions(xml: string): string[] {
  const simple = [...xml.matchAll(/<w:fldSimple\b[^>]*\bw:instr="([^"]*)"/g)].map((match) => match[1]!);
  const complex = xml
    .split(/w:fldCharType="begin"/)
    .slice(1)
    .map((field) => {
      const end = field.search(/w:fldCharType="(separate|end)"/);
      return [...(end < 0 ? field : field.slice(0, end)).matchAll(/<w:instrText\b[^>]*>([^<]*)<\/w:instrText>/g)].map((match) => match[1]!).join('');
    });
  return [...simple, ...complex];
}

/**
 * The bookmark at the start of the body's first paragraph, after its properties: LibreOffice
 * ties a bookmark between paragraphs to the end of the one before, which is the previous
 * document's. Undefined when the body does not open with a plain visible paragraph (a table,
 * a content control, a paragraph hidden or framed by its properties or its style), where the
 * mark could land elsewhere.
 */
function markFirstParagraph(body: string, bookmark: string, unmarkableStyles: Set<string>): string | undefined {
  const paragraph = /^\s*<w:p(?: [^>]*)?>(<w:pPr>.*?<\/w:pPr>|<w:pPr\/>)?/s.exec(body);
  if (!paragraph) return undefined;
  const properties = paragraph[1] ?? '';
  if (/<w:(vanish|specVanish|framePr)\b/.test(properties)) return undefined;
  if (paragraphStyles(properties).some((style) => style !== undefined && unmarkableStyles.has(style))) return undefined;
  const at = paragraph[0].length;
  return body.slice(0, at) + bookmark + body.slice(at);
}

/** The section properties with page numbers starting at 1; undefined when they number pages or lines their own way. */
function restartPageNumbers(sectPr: string): string | undefined {
  if (/<w:pgNumType\b|<w:lnNumType\b/.test(sectPr)) return undefined;
  const at = AFTER_PAGE_NUMBERS.exec(sectPr)?.index ?? sectPr.lastIndexOf('</w:sectPr>');
  return at < 0 ? undefined : `${sectPr.slice(0, at)}<w:pgNumType w:start="1"/>${sectPr.slice(at)}`;
}
