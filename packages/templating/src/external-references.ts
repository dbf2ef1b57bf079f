import PizZip from 'pizzip';
import { fetchingFieldsIn, UnreadableFieldsError } from './field-instructions';
import { makePackageSelfContained, refuseDocumentTypeDeclarations, xmlText } from './package-links';
import { TemplateError } from './template-error';
import { partBytes } from './zip-entry';

/**
 * The DOCX must not point anywhere LibreOffice (or Word) would fetch or read when the template
 * is rendered: see makePackageSelfContained (package-links.ts) for the relationships and
 * attributes removed. Fields that fetch or link (INCLUDEPICTURE, INCLUDETEXT, LINK, DDE,
 * DDEAUTO: see field-instructions.ts) are refused rather than cut out: a template that pulls
 * in another file, address or program at render time is refused at upload with a message,
 * since cutting a complex field apart safely is not simple. The instruction is read whole,
 * however many runs Word split it into.
 */
export function removeExternalReferences(docx: Buffer): Buffer {
  const zip = new PizZip(docx);
  refuseDocumentTypeDeclarations(zip);
  for (const [name, entry] of Object.entries(zip.files)) {
    if (entry.dir) continue;
    const xml = xmlText(name, partBytes(entry));
    if (xml !== undefined) refuseFetchingFields(name, xml);
  }
  return makePackageSelfContained(zip) ? zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }) : docx;
}

/**
 * The fetching fields of the parts a fill wrote. A value cannot add field markup (it is
 * written as escaped text), but a tag placed inside a field code can complete one: the
 * template `{x}` between a field's begin and separate becomes INCLUDEPICTURE with the right
 * value. So a render checks again every part docxtemplater filled (`filledParts`: chosen by
 * content type, whatever the part is called); parts without field markup cost a regex.
 */
export function fetchingFieldsAfterFill(zip: PizZip, filledParts: string[]): string[] {
  const found = new Set<string>();
  for (const name of filledParts) {
    const entry = zip.file(name);
    if (!entry || entry.dir) continue;
    for (const field of fetchingFieldsIn(entry.asText())) found.add(field);
  }
  return [...found];
}

function refuseFetchingFields(name: string, xml: string): void {
  let fields: string[];
  try {
    fields = fetchingFieldsIn(xml);
  } catch (error) {
    if (!(error instanceof UnreadableFieldsError)) throw error;
    throw new TemplateError(
      'invalid',
      `The DOCX part ${name} is not well-formed XML, so its fields cannot be checked; open the file in Word, save it again and upload it`,
    );
  }
  if (fields.length === 0) return;
  const names = fields.join(', ');
  throw new TemplateError(
    'invalid',
    `The template includes content from another file, address or program (${fields.length === 1 ? `${/^[AEIOU]/.test(names) ? 'an' : 'a'} ${names} field` : `${names} fields`}); remove ${fields.length === 1 ? 'it' : 'them'} and upload again`,
  );
}
