import { convertOnce } from '@docgen/converter';
import { decodeHtml } from './decode-html';
import { rewriteHtml } from './rewrite-html';
import { removeExternalReferences } from '../external-references';

export interface HtmlToDocxOptions {
  timeoutMs?: number;
}

/**
 * Converts an uploaded HTML template to a DOCX template with LibreOffice, without letting the
 * conversion fetch anything. Throws TemplateError('invalid') for a file that is not HTML text.
 */
export async function htmlToDocx(html: Buffer, options: HtmlToDocxOptions = {}): Promise<Buffer> {
  const { html: rewritten } = rewriteHtml(decodeHtml(html));
  const docx = await convertOnce(Buffer.from(rewritten, 'utf8'), {
    from: 'html',
    // "HTML (StarWriter)" opens the file as a Writer text document (the default, Writer/Web,
    // cannot export DOCX). The filter name must not be quoted: spawn passes quotes literally
    // and LibreOffice then fails to store the file.
    inputFilter: 'HTML (StarWriter)',
    to: 'docx:MS Word 2007 XML',
    timeoutMs: options.timeoutMs,
  });
  return removeExternalReferences(docx);
}
