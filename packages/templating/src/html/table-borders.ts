import type { CheerioAPI } from 'cheerio';

// LibreOffice turns <table border="1"> into grey double borders and ignores cell borders set
// through selectors in a <style> block; only a border in each cell's own style attribute
// becomes a single black line in the DOCX. 0.75pt (= 1px at 96 dpi) exports as w:sz="6";
// "1px" exports as a 0.25pt hairline.
const CELL_BORDER = 'border: 0.75pt solid #000000';

/** Gives every table written with a non-zero `border` attribute single black cell borders. */
export function explicitTableBorders($: CheerioAPI): void {
  $('table[border]').each((_, element) => {
    const table = $(element);
    const width = Number.parseInt(table.attr('border') ?? '', 10);
    table.removeAttr('border');
    if (width === 0) return;
    table.attr('style', prependDeclaration(table.attr('style'), 'border-collapse: collapse'));
    // Only this table's own cells: a nested table keeps its own border setting.
    table
      .find('td, th')
      .filter((__, cell) => $(cell).closest('table').is(table))
      .each((__, cell) => {
        $(cell).attr('style', prependDeclaration($(cell).attr('style'), CELL_BORDER));
      });
  });
}

// Ours goes first so a declaration the author wrote on the element still wins.
function prependDeclaration(style: string | undefined, declaration: string): string {
  const rest = (style ?? '').trim();
  return rest ? `${declaration}; ${rest}` : declaration;
}
