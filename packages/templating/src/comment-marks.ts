import PizZip from 'pizzip';
import type { Element } from '@xmldom/xmldom';
import { parseXml, serialize } from './package-links';

/** The elements that place a comment in the text; an element's name cannot be spelt with character references, so a part without these words has none. */
const MARKS = new Set(['commentRangeStart', 'commentRangeEnd', 'commentReference']);
const MIGHT_HAVE_MARKS = /commentRange(Start|End)|commentReference/;

/**
 * The DOCX LibreOffice converts, without the marks that place comments in the text. Debian's
 * LibreOffice without its GUI (libreoffice-writer-nogui) lacks the dialog file of a comment's
 * window and aborts when a view lays out a document with comments, so every DOCX goes to it
 * without them; the PDF never showed comments (the profile does not export them). The
 * comments themselves, unreferenced, stay. Marks are found by their local name whatever
 * prefix or namespace spells them. Returns `docx` itself when it has none.
 */
export function withoutCommentMarks(docx: Buffer): Buffer {
  const zip = new PizZip(docx);
  let changed = false;
  for (const file of Object.values(zip.files)) {
    if (file.dir || !/\.xml$/i.test(file.name)) continue;
    const xml = file.asText();
    if (!MIGHT_HAVE_MARKS.test(xml)) continue;
    const document = parseXml(file.name, xml);
    const marks = [...MARKS].flatMap((name) => Array.from(document.getElementsByTagNameNS('*', name)) as Element[]);
    if (marks.length === 0) continue;
    for (const mark of marks) mark.parentNode?.removeChild(mark);
    zip.file(file.name, serialize(document));
    changed = true;
  }
  return changed ? zip.generate({ type: 'nodebuffer', compression: 'STORE' }) : docx;
}
