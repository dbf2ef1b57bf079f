import PizZip from 'pizzip';

const EXTERNAL_RELATIONSHIP = /<Relationship\b[^>]*TargetMode="External"[^>]*\/>/g;
const FETCHING_FIELD = /\b(INCLUDEPICTURE|INCLUDETEXT|LINK|DDEAUTO|DDE)\b/;

/**
 * Removes what would make LibreOffice fetch from the network when it opens the DOCX:
 * external relationships other than hyperlinks (linked images, attached templates,
 * frames, OLE links) and INCLUDEPICTURE/INCLUDETEXT/LINK/DDE fields. Hyperlinks stay:
 * nothing follows them during conversion.
 */
export function removeExternalReferences(docx: Buffer): Buffer {
  const zip = new PizZip(docx);
  let changed = false;
  for (const name of Object.keys(zip.files)) {
    if (name.endsWith('.rels')) {
      const xml = zip.file(name)!.asText();
      const cleaned = xml.replace(EXTERNAL_RELATIONSHIP, (relationship) => (relationship.includes('/hyperlink"') ? relationship : ''));
      if (cleaned !== xml) {
        zip.file(name, cleaned);
        changed = true;
      }
    } else if (/^word\/.*\.xml$/.test(name)) {
      const xml = zip.file(name)!.asText();
      const cleaned = xml
        .replace(/<w:instrText\b[^>]*>([^<]*)<\/w:instrText>/g, (whole, code: string) => (FETCHING_FIELD.test(code) ? '' : whole))
        .replace(/<w:fldSimple\b[^>]*w:instr="([^"]*)"[^>]*>/g, (whole, code: string) => (FETCHING_FIELD.test(code) ? '<w:fldSimple w:instr="">' : whole));
      if (cleaned !== xml) {
        zip.file(name, cleaned);
        changed = true;
      }
    }
  }
  return changed ? zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }) : docx;
}
