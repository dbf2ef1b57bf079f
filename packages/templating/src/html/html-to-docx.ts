import { convertOnce } from '@docgen/converter';
import { decodeHtml } from './decode-html';
import { rewriteHtml } from './rewrite-html';
import { removeExternalReferences } from '../external-references';

/**
 * LibreOffice's HTML → DOCX step: the rewritten HTML in, a DOCX out. "HTML (StarWriter)"
 * opens the file as a Writer text document (the default, Writer/Web, cannot export DOCX).
 */
export type HtmlConversion = (html: Buffer, options: { inputFilter: string; timeoutMs?: number }) => Promise<Buffer>;

export const HTML_IMPORT_FILTER = 'HTML (StarWriter)';

/** A cold soffice per call (tests and tools); the render worker passes its warm pool instead. */
const coldConversion: HtmlConversion = (html, { inputFilter, timeoutMs }) =>
  // The filter name must not be quoted: spawn passes quotes literally and LibreOffice then fails to store the file.
  convertOnce(html, { from: 'html', inputFilter, to: 'docx:MS Word 2007 XML', timeoutMs });

export interface HtmlToDocxOptions {
  timeoutMs?: number;
  convert?: HtmlConversion;
}

/**
 * Converts an uploaded HTML template to a DOCX template with LibreOffice, without letting the
 * conversion fetch anything. Throws TemplateError('invalid') for a file that is not HTML text.
 */
export async function htmlToDocx(html: Buffer, options: HtmlToDocxOptions = {}): Promise<Buffer> {
  const { html: rewritten } = rewriteHtml(decodeHtml(html));
  const convert = options.convert ?? coldConversion;
  const docx = await convert(Buffer.from(rewritten, 'utf8'), { inputFilter: HTML_IMPORT_FILTER, timeoutMs: options.timeoutMs });
  return removeExternalReferences(docx);
}
