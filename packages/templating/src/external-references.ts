import PizZip from 'pizzip';
import { TemplateError } from './template-error';

const HYPERLINK_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink';
const RELATIONSHIP = /<Relationship\b[^>]*\/>|<Relationship\b[^>]*>[\s\S]*?<\/Relationship>/g;
const REMOTE_FIELD = /<w:instrText\b[^>]*>[^<]*\bINCLUDE(?:PICTURE|TEXT)\b|\bw:instr="[^"]*\bINCLUDE(?:PICTURE|TEXT)\b/i;

/**
 * The DOCX must not point anywhere LibreOffice (or Word)
 * would fetch when the template is rendered. External relationships other than hyperlinks are
 * removed with the attributes that use them. INCLUDEPICTURE/INCLUDETEXT fields are refused
 * rather than cut out: a template that pulls in another file or address at render time is refused at
 * upload with a message, since cutting a complex field apart safely is not simple.
 */
export function removeExternalReferences(docx: Buffer): Buffer {
  const zip = new PizZip(docx);
  let changed = false;
  for (const name of Object.keys(zip.files)) {
    if (name.endsWith('.xml') && REMOTE_FIELD.test(zip.file(name)?.asText() ?? '')) {
      throw new TemplateError('invalid', 'The template includes content from another file or address (an INCLUDEPICTURE or INCLUDETEXT field); remove it and upload again');
    }
    if (!name.endsWith('.rels')) continue;
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
  return changed ? zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }) : docx;
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
