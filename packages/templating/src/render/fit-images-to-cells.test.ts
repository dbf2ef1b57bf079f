import { fitImagesToCells } from './fit-images-to-cells';

const picture = (cx: number, cy: number) =>
  `<w:r><w:drawing><wp:inline><wp:extent cx="${cx}" cy="${cy}"/><a:blip r:embed="rIdDocgenImage1"/><a:ext cx="${cx}" cy="${cy}"/></wp:inline></w:drawing></w:r>`;
const extents = (xml: string) => [...xml.matchAll(/<wp:extent cx="(\d+)" cy="(\d+)"\/>/g)].map((m) => [Number(m[1]), Number(m[2])]);
const TEXT_WIDTH = 9638 * 635;

describe('fitImagesToCells', () => {
  it('shrinks a picture to its cell width in twips less the cell margins, keeping the aspect ratio, in both extents', () => {
    const xml = `<w:tbl><w:tr><w:tc><w:tcPr><w:tcW w:w="2216" w:type="dxa"/></w:tcPr><w:p>${picture(6_000_000, 3_000_000)}</w:p></w:tc></w:tr></w:tbl>`;
    const fitted = fitImagesToCells(xml, TEXT_WIDTH);
    expect(extents(fitted)).toEqual([[2000 * 635, 1000 * 635]]);
    expect(fitted).toContain(`<a:ext cx="${2000 * 635}" cy="${1000 * 635}"/>`);
  });

  it('gives a cell without a fixed width its share of the enclosing cell, and leaves pictures outside tables and small ones alone', () => {
    const inner = `<w:tbl><w:tr><w:tc><w:p>${picture(6_000_000, 3_000_000)}</w:p></w:tc><w:tc><w:p/></w:tc></w:tr></w:tbl>`;
    const xml = `${picture(5_000_000, 1_000_000)}<w:tbl><w:tr><w:tc><w:tcPr><w:tcW w:w="4216" w:type="dxa"/></w:tcPr>${inner}</w:tc><w:tc><w:p>${picture(100_000, 100_000)}</w:p></w:tc></w:tr></w:tbl>`;
    const [outside, nested, small] = extents(fitImagesToCells(xml, TEXT_WIDTH));
    expect(outside).toEqual([5_000_000, 1_000_000]);
    expect(nested![0]).toBe(Math.round((4000 * 635) / 2 - 216 * 635));
    expect(small).toEqual([100_000, 100_000]);
  });
});
