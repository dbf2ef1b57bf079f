import type { CheerioAPI } from 'cheerio';
import { imageSize } from 'image-size';
import { TEXT_WIDTH_PX } from './page-layout';

const SIZE_DECLARATION = /^(?:max-|min-)?(?:width|height)\s*:/i;

/**
 * Gives every data: URI image explicit width and height attributes in CSS pixels, scaled down
 * to the text width when wider. LibreOffice ignores max-width, shrinks `width="100%"` to a
 * sliver and lets a style width override the attributes, so the size has to be spelled out.
 */
export function fitImagesToTextWidth($: CheerioAPI, maxWidthPx: number = TEXT_WIDTH_PX): void {
  $('img').each((_, element) => {
    const image = $(element);
    const natural = naturalSize(image.attr('src') ?? '');
    if (!natural) return;
    let { width, height } = requestedSize(image.attr('width'), image.attr('height'), natural);
    if (width > maxWidthPx) {
      height = (height * maxWidthPx) / width;
      width = maxWidthPx;
    }
    image.attr('width', String(Math.max(1, Math.round(width))));
    image.attr('height', String(Math.max(1, Math.round(height))));
    const style = (image.attr('style') ?? '')
      .split(';')
      .map((d) => d.trim())
      .filter((d) => d && !SIZE_DECLARATION.test(d));
    if (style.length > 0) image.attr('style', style.join('; '));
    else image.removeAttr('style');
  });
}

interface Size {
  width: number;
  height: number;
}

function naturalSize(src: string): Size | undefined {
  const comma = src.indexOf(',');
  if (!src.startsWith('data:') || comma < 0) return undefined;
  try {
    const { width, height } = imageSize(Buffer.from(src.slice(comma + 1), 'base64'));
    return width > 0 && height > 0 ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

// The author's pixel width/height attributes when given (one of them keeps the aspect ratio);
// percentages and other units fall back to the image's own size.
function requestedSize(widthAttribute: string | undefined, heightAttribute: string | undefined, natural: Size): Size {
  const width = pixels(widthAttribute);
  const height = pixels(heightAttribute);
  if (width && height) return { width, height };
  if (width) return { width, height: (natural.height * width) / natural.width };
  if (height) return { width: (natural.width * height) / natural.height, height };
  return natural;
}

function pixels(value: string | undefined): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:px)?\s*$/i.exec(value ?? '');
  const parsed = match ? Number(match[1]) : NaN;
  return parsed > 0 ? parsed : undefined;
}
