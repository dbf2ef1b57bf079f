import { PAGE_MARGIN_MM } from './page-layout';
import { sanitizeHtml } from './sanitize-html';
import { fitImagesToTextWidth } from './size-images';
import { explicitTableBorders } from './table-borders';
import { cheerioLibrary } from './html-libraries';

export interface RewrittenHtml {
  html: string;
  /** What was stripped because it would have been fetched from the network. */
  removed: string[];
}

/**
 * Rewrites an HTML template so LibreOffice converts it offline and lays it out the way a
 * browser would print it: nothing remote, UTF-8, 20 mm margins, visible table borders,
 * images no wider than the text.
 */
export function rewriteHtml(source: string): RewrittenHtml {
  const $ = cheerioLibrary().load(source);
  const removed = sanitizeHtml($);
  explicitTableBorders($);
  fitImagesToTextWidth($);
  $('meta[charset]').remove();
  // Prepended, so the author's own @page rule (later in the document) still wins.
  $('head').prepend(`<meta charset="utf-8"><style>@page { margin: ${PAGE_MARGIN_MM}mm }</style>`);
  // The sanitiser removed the author's doctype (one naming a DTD could be fetched).
  return { html: `<!DOCTYPE html>${$.html()}`, removed };
}
