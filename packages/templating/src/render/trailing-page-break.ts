const PAGE_BREAK = /<w:br\b[^>]*w:type="page"[^>]*\/>/g;
const CONTENT = /<w:t(?:\s[^>]*)?>[^<]|<w:drawing>|<w:pict>|<w:object>|<w:tbl>|<w:sym\b|<w:tab\/>/;

/**
 * Removes a page break after which the body holds nothing visible: the break that ends the
 * last element of a `{#pages}…<page break>{/pages}` loop, which would otherwise leave a
 * blank last page. Breaks followed by any text, picture or table stay.
 */
export function dropTrailingPageBreak(documentXml: string): string {
  const breaks = [...documentXml.matchAll(PAGE_BREAK)];
  const last = breaks[breaks.length - 1];
  if (!last) return documentXml;
  const after = last.index + last[0].length;
  const sectionEnd = documentXml.lastIndexOf('<w:sectPr');
  const rest = documentXml.slice(after, sectionEnd > after ? sectionEnd : documentXml.indexOf('</w:body>'));
  if (CONTENT.test(rest)) return documentXml;
  return documentXml.slice(0, last.index) + documentXml.slice(after);
}
