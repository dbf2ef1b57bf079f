import { convertOnce } from '@docgen/converter';
import { readHtml } from './read-html';
import { rewriteHtml } from './rewrite-html';
import { removeExternalReferences } from '../external-references';

/**
 * An HTML template becomes a DOCX through LibreOffice's Writer HTML import, so one render
 * path serves both formats. The HTML is rewritten first (see rewriteHtml) and the DOCX is
 * checked afterwards for any external reference that slipped through.
 */
export async function htmlToDocx(file: Buffer, options: { timeoutMs?: number } = {}): Promise<Buffer> {
  const html = rewriteHtml(readHtml(file));
  const docx = await convertOnce(Buffer.from(html, 'utf8'), {
    from: 'html',
    to: 'docx:MS Word 2007 XML',
    inputFilter: 'HTML (StarWriter)',
    timeoutMs: options.timeoutMs,
  });
  return removeExternalReferences(docx);
}
