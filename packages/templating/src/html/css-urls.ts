const IMPORT_RULE = /@import\b[^;]*;?/gi;
const URL_FUNCTION = /url\s*\(\s*(?:"[^"]*"|'[^']*'|[^)]*)\s*\)/gi;
// CSS escapes can spell "url(" or "@import" without those letters (u\72l(...)); LibreOffice's
// parser does not decode them, but a declaration that needs one is never worth the risk.
const ESCAPE = /\\/g;

/**
 * CSS with every external reference removed: `@import` rules go, `url(...)` becomes `none`.
 * Data URIs in `url()` go too: LibreOffice's HTML import does not use CSS backgrounds anyway.
 */
export function stripCssUrls(css: string): { css: string; changed: boolean } {
  const stripped = css.replace(ESCAPE, '').replace(IMPORT_RULE, '').replace(URL_FUNCTION, 'none');
  return { css: stripped, changed: stripped !== css };
}
