const EMU_PER_TWIP = 635;
/** Word's default left + right cell margins (108 twips each). */
const CELL_MARGINS_TWIPS = 216;

interface Cell {
  parent: Cell | undefined;
  row: { cells: number };
  widthTwips?: number;
}

interface Picture {
  cell: Cell;
  start: number;
  end: number;
}

const TOKENS = /<w:tr[ >]|<\/w:tr>|<w:tc[ >]|<\/w:tc>|<w:tcW\b[^>]*>|<w:drawing>[\s\S]*?<\/w:drawing>/g;

/**
 * Shrinks each picture we placed inside a table cell (`rIdDocgenImage…`) to the cell's
 * width, keeping its aspect ratio. A cell without a fixed width (`w:tcW` in twips) gets
 * its share of the enclosing width: the text width, or the outer cell's, divided by the
 * cells of its row.
 */
export function fitImagesToCells(xml: string, textWidthEmu: number): string {
  const rows: { cells: number }[] = []; // the open rows, innermost last
  const open: Cell[] = [];
  const pictures: Picture[] = [];
  for (const match of xml.matchAll(TOKENS)) {
    const token = match[0];
    if (token.startsWith('<w:tr')) rows.push({ cells: 0 });
    else if (token === '</w:tr>') rows.pop();
    else if (token.startsWith('<w:tcW')) {
      const width = /w:w="(\d+)"/.exec(token)?.[1];
      const type = /w:type="(\w+)"/.exec(token)?.[1] ?? 'dxa';
      const cell = open[open.length - 1];
      if (cell && width && type === 'dxa' && Number(width) > 0) cell.widthTwips = Number(width);
    } else if (token.startsWith('<w:tc')) {
      const row = rows[rows.length - 1] ?? { cells: 1 };
      row.cells += 1;
      open.push({ parent: open[open.length - 1], row });
    } else if (token === '</w:tc>') open.pop();
    else if (token.includes('rIdDocgenImage') && open.length > 0) {
      pictures.push({ cell: open[open.length - 1]!, start: match.index, end: match.index + token.length });
    }
  }
  const available = (cell: Cell | undefined): number => {
    if (!cell) return textWidthEmu;
    if (cell.widthTwips) return (cell.widthTwips - CELL_MARGINS_TWIPS) * EMU_PER_TWIP;
    return available(cell.parent) / Math.max(1, cell.row.cells) - CELL_MARGINS_TWIPS * EMU_PER_TWIP;
  };
  let out = xml;
  for (const picture of pictures.reverse()) {
    const drawing = out.slice(picture.start, picture.end);
    const [, cx, cy] = /<wp:extent cx="(\d+)" cy="(\d+)"\/>/.exec(drawing) ?? [];
    const limit = Math.max(EMU_PER_TWIP * 144, available(picture.cell));
    if (!cx || !cy || Number(cx) <= limit) continue;
    const scale = limit / Number(cx);
    const width = Math.round(Number(cx) * scale);
    const height = Math.round(Number(cy) * scale);
    const fitted = drawing.replaceAll(`cx="${cx}" cy="${cy}"`, `cx="${width}" cy="${height}"`);
    out = out.slice(0, picture.start) + fitted + out.slice(picture.end);
  }
  return out;
}
