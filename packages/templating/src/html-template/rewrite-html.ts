import { load, type CheerioAPI } from 'cheerio';
import { imageSize } from 'image-size';

/** A4 (210 mm) less two 20 mm margins, in CSS pixels (96 per inch). */
export const TEXT_WIDTH_PX = Math.floor((170 / 25.4) * 96);

const FETCHING_ELEMENTS = 'script, iframe, frame, frameset, object, embed, link, base, meta[http-equiv], audio, video, source, track, svg image';
const CSS_URL = /url\s*\([^)]*\)/gi;
const CSS_IMPORT = /@import[^;]*;?/gi;

/**
 * Rewrites an HTML template so LibreOffice lays it out like a browser would and fetches
 * nothing while converting it:
 * - every element or CSS reference that would load something remote is removed, and
 *   <img> keeps only data: URIs (a remote image in a template is refused by removal; the
 *   `{%name}` image tag is the supported way to put a fetched image in a document);
 * - 20 mm page margins, UTF-8;
 * - tables with a `border` attribute get explicit single 1px borders (LibreOffice would
 *   draw grey double lines);
 * - images get an explicit size from their real pixels, capped at the text width
 *   (LibreOffice ignores max-width and shrinks width="100%" to nothing).
 */
export function rewriteHtml(html: string): string {
  const $ = load(html);
  $(FETCHING_ELEMENTS).remove();
  $('[srcset]').removeAttr('srcset');
  $('[background]').removeAttr('background');
  $('style').each((_, element) => {
    const style = $(element);
    style.text(style.text().replace(CSS_IMPORT, '').replace(CSS_URL, 'none'));
  });
  $('[style]').each((_, element) => {
    const node = $(element);
    node.attr('style', (node.attr('style') ?? '').replace(CSS_URL, 'none'));
  });
  borderedTables($);
  sizeImages($);
  $('head').prepend('<meta charset="utf-8"><style>@page { size: A4; margin: 20mm; }</style>');
  return $.html();
}

function borderedTables($: CheerioAPI): void {
  $('table[border]').each((_, element) => {
    const table = $(element);
    const width = Number.parseInt(table.attr('border') ?? '0', 10);
    table.removeAttr('border');
    if (!(width > 0)) return;
    table.attr('cellspacing', '0');
    table.attr('style', `border-collapse: collapse; ${table.attr('style') ?? ''}`);
    table.find('td, th').each((__, cell) => {
      const node = $(cell);
      node.attr('style', `border: ${width}px solid #000000; ${node.attr('style') ?? ''}`);
    });
  });
}

function sizeImages($: CheerioAPI): void {
  $('img').each((_, element) => {
    const img = $(element);
    const source = img.attr('src') ?? '';
    const data = /^data:image\/[a-z+.-]+;base64,(.*)$/is.exec(source.trim());
    if (!data) {
      img.remove();
      return;
    }
    let size: { width?: number; height?: number };
    try {
      size = imageSize(Buffer.from(data[1]!, 'base64'));
    } catch {
      img.remove();
      return;
    }
    if (!size.width || !size.height) return;
    const scale = Math.min(1, TEXT_WIDTH_PX / size.width);
    img.attr('width', String(Math.round(size.width * scale)));
    img.attr('height', String(Math.round(size.height * scale)));
    img.removeAttr('style');
  });
}
