import type { CheerioAPI } from 'cheerio';
import { stripCssUrls } from './css-urls';

// Elements that load something (or can hide markup from cheerio that LibreOffice would still
// parse: <noscript>, <template>, <noembed>, <noframes> hold raw text for one parser and tags for
// the other). Their content is never part of a printed document.
const REMOVED_ELEMENTS = [
  'script', 'noscript', 'template', 'iframe', 'frame', 'frameset', 'noframes', 'object', 'embed', 'noembed',
  'applet', 'param', 'link', 'base', 'video', 'audio', 'source', 'track', 'picture', 'bgsound', 'svg', 'math',
  'input[type=image]', 'meta[http-equiv]',
];
// Attributes LibreOffice (or any HTML reader) may resolve to a URL and fetch.
const URL_ATTRIBUTES = ['background', 'lowsrc', 'dynsrc', 'srcset', 'poster', 'data', 'longdesc', 'usemap', 'cite'];

// LibreOffice's HTML import reads these raster types; SVG is left out because an SVG can itself
// reference external files.
const EMBEDDABLE_IMAGE = /^data:image\/(?:png|jpe?g|gif|bmp|webp);base64,/i;

/**
 * Removes everything in the HTML that would make LibreOffice fetch a URL, and returns what it
 * removed (one entry per kind, e.g. `<img src="https://…">`), so a caller could report it.
 *
 * Remote images, stylesheets and frames are stripped rather than refused: templates exported
 * from other tools routinely link a web font or a tracking pixel, and refusing those would
 * reject otherwise good templates. A remote picture belongs in an `{%name}` image tag, which is
 * fetched at render time through the private-address guard.
 */
export function stripRemoteContent($: CheerioAPI): string[] {
  const removed = new Set<string>();
  const note = (what: string) => removed.add(what);

  $.root().find('*').addBack().contents().filter((_, node) => node.type === 'comment').remove();
  $('xmp, plaintext').each((_, element) => {
    $(element).replaceWith($('<pre>').text($(element).text()));
  });
  for (const selector of REMOVED_ELEMENTS) {
    const found = $(selector);
    if (found.length > 0) note(`<${selector}>`);
    found.remove();
  }
  $('img').each((_, element) => {
    const image = $(element);
    const src = (image.attr('src') ?? '').trim();
    if (!EMBEDDABLE_IMAGE.test(src)) {
      note(src.startsWith('data:') ? '<img> with an unsupported data: image type' : `<img src="${src.slice(0, 100)}">`);
      image.remove();
    }
  });
  $('[src]').not('img').each((_, element) => {
    note(`src attribute on <${$(element).prop('tagName')?.toLowerCase()}>`);
    $(element).removeAttr('src');
  });
  for (const attribute of URL_ATTRIBUTES) {
    const found = $(`[${attribute}]`);
    if (found.length > 0) note(`${attribute} attribute`);
    found.removeAttr(attribute);
  }
  $('style').each((_, element) => {
    const { css, changed } = stripCssUrls($(element).text());
    if (changed) {
      note('url() or @import in a <style> block');
      $(element).text(css);
    }
  });
  $('[style]').each((_, element) => {
    const { css, changed } = stripCssUrls($(element).attr('style') ?? '');
    if (changed) {
      note('url() in a style attribute');
      $(element).attr('style', css);
    }
  });
  return [...removed];
}
