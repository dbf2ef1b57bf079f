import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode } from 'domhandler';
import type * as csstree from 'css-tree';
import { PAGE_MARGIN_MM } from './page-layout';
import { sanitizeHtml } from './sanitize-html';
import { cheerioLibrary, cssTreeLibrary, parse5AdapterLibrary, parse5Library } from './html-libraries';

/** What Chromium is given to print one HTML document. */
export interface PrintableHtml {
  html: string;
  /** Chromium's headerTemplate/footerTemplate, from `<header data-page>` and `<footer data-page>`. */
  headerTemplate?: string;
  footerTemplate?: string;
}

// The seed's rules, before the author's styles so that the author's own win: A4 with 20 mm
// margins unless the template's @page says otherwise (and no extra body margin), cells of a <table border> visibly
// bordered, rows kept whole across page breaks. Images never wider than the page, whatever
// the author wrote. Backgrounds print as on screen.
const SEED_CSS = [
  `@page { size: A4; margin: ${PAGE_MARGIN_MM}mm }`,
  'html { -webkit-print-color-adjust: exact; print-color-adjust: exact }',
  // The page margin is the margin: no browser's 8 px on top of it (the author's own body margin wins).
  ':where(body) { margin: 0 }',
  'img { max-width: 100% !important }',
  ':where(table[border]:not([border="0"])) { border-collapse: collapse }',
  ':where(table[border]:not([border="0"]) > * > tr > td, table[border]:not([border="0"]) > * > tr > th) { border: 1px solid #000; padding: 2px 4px }',
  ':where(tr) { break-inside: avoid }',
].join('\n');

/**
 * Filled HTML made ready for Chromium: parsed as a browser parses it (parse5, scripting off,
 * as in the printing page), sanitised again (a section can join the text of two places into
 * markup the upload never saw), the running header and footer taken out of the page into
 * Chromium's templates, the seed's rules prepended.
 */
export function printableHtml(filled: string): PrintableHtml {
  const document = parse5Library().parse(filled, { treeAdapter: parse5AdapterLibrary().adapter, scriptingEnabled: false });
  const $ = documentWrapper();
  const page = $(document);
  sanitizeHtml($, { css: 'browser', root: document });
  const styles = page
    .find('style')
    .map((_, style) => $(style).text())
    .get()
    .join('\n');
  const headerTemplate = runningTemplate($, page, 'header', styles);
  const footerTemplate = runningTemplate($, page, 'footer', styles);
  page.find('meta[charset]').remove();
  page.find('head').prepend(`<meta charset="utf-8"><style>${SEED_CSS}</style>`);
  return {
    html: `<!DOCTYPE html>${$.html(document)}`,
    ...(headerTemplate !== undefined || footerTemplate !== undefined
      ? { headerTemplate: headerTemplate ?? EMPTY, footerTemplate: footerTemplate ?? EMPTY }
      : {}),
  };
}

let wrapper: CheerioAPI | undefined;

/**
 * One cheerio instance wraps the nodes of every filled document (each parsed on its own,
 * above): cheerio's `load` defines a new class each time it is called, which cost more than
 * parsing the document and left every later call on its objects slower (docs/BENCHMARKS.md).
 * Its own document stays empty; HTML it parses (`prepend`) is read with the same options.
 */
const documentWrapper = (): CheerioAPI => (wrapper ??= cheerioLibrary().load('', { scriptingEnabled: false }));

const EMPTY = '<span></span>';

/**
 * `<header data-page>` (or footer) as a Chromium header template: Chromium prints it in the
 * page margin of every page, as a separate document that inherits none of the page's styles,
 * so the author's stylesheets go with it and a readable size is set. `data-page-number` and
 * `data-page-count` become the classes Chromium fills in.
 */
function runningTemplate($: CheerioAPI, page: Cheerio<AnyNode>, name: 'header' | 'footer', styles: string): string | undefined {
  const element = page.find(`${name}[data-page]`).first();
  if (element.length === 0) return undefined;
  element.find('[data-page-number]').empty().addClass('pageNumber');
  element.find('[data-page-count]').empty().addClass('totalPages');
  const content = $.html(element);
  page.find(`${name}[data-page]`).remove();
  const { left, right } = pageSideMargins(styles);
  const box = `width: 100%; margin: 0 ${right} 0 ${left}; font-size: 9pt; -webkit-print-color-adjust: exact; print-color-adjust: exact`;
  return `<style>${styles}</style><div style="${box}">${content}</div>`;
}

/**
 * The left and right page margins the template's own `@page` rules set (the last one wins),
 * so the running header and footer line up with the text; 20 mm where they set none.
 */
export function pageSideMargins(styles: string): { left: string; right: string } {
  const margins = { left: `${PAGE_MARGIN_MM}mm`, right: `${PAGE_MARGIN_MM}mm` };
  let sheet: csstree.CssNode;
  try {
    sheet = cssTreeLibrary().parse(styles, { parseValue: true });
  } catch {
    return margins;
  }
  cssTreeLibrary().walk(sheet, {
    visit: 'Atrule',
    enter(rule) {
      if (rule.name.toLowerCase() !== 'page' || !rule.block) return;
      for (const node of rule.block.children) {
        if (node.type !== 'Declaration' || node.value.type !== 'Value') continue;
        const values = node.value.children.toArray().map((value) => cssTreeLibrary().generate(value));
        const property = node.property.toLowerCase();
        if (property === 'margin' && values.length > 0) {
          margins.right = values[1] ?? values[0]!;
          margins.left = values[3] ?? values[1] ?? values[0]!;
        } else if (property === 'margin-left' && values[0]) margins.left = values[0];
        else if (property === 'margin-right' && values[0]) margins.right = values[0];
      }
    },
  });
  return margins;
}
