import type { CheerioAPI } from 'cheerio';
import type { Document } from 'domhandler';
import { sanitizeDeclarations, sanitizeStylesheet, type CssProfile } from './sanitize-css';
import { DEFAULT_IMAGE_BOUNDS, imageBoundsProblem } from '../image-bounds';
import { TemplateError } from '../template-error';

// What a printed template is made of. Each kept element keeps only the attributes listed
// for it (or for every element); anything else is unwrapped (its content stays) or, for the
// elements below, dropped with its content.
const GLOBAL_ATTRIBUTES = ['style', 'class', 'id', 'title', 'lang', 'xml:lang', 'dir', 'align', 'valign', 'width', 'height', 'bgcolor'];
// The running header and footer of a printed HTML template (print-layout.ts).
const PAGE_ATTRIBUTES = ['data-page', 'data-page-number', 'data-page-count'];
const ELEMENTS: Record<string, string[]> = {
  html: [],
  head: [],
  body: [],
  title: [],
  style: [],
  p: [],
  div: [],
  span: [],
  br: ['clear'],
  hr: ['size', 'noshade', 'color'],
  wbr: [],
  h1: [],
  h2: [],
  h3: [],
  h4: [],
  h5: [],
  h6: [],
  b: [],
  strong: [],
  i: [],
  em: [],
  u: [],
  s: [],
  strike: [],
  del: [],
  ins: [],
  sub: [],
  sup: [],
  small: [],
  big: [],
  mark: [],
  font: ['color', 'face', 'size'],
  blockquote: [],
  pre: [],
  code: [],
  tt: [],
  kbd: [],
  samp: [],
  var: [],
  q: [],
  cite: [],
  abbr: [],
  acronym: [],
  address: [],
  center: [],
  section: [],
  article: [],
  header: [],
  footer: [],
  main: [],
  nav: [],
  aside: [],
  figure: [],
  figcaption: [],
  label: [],
  time: [],
  ul: ['type'],
  ol: ['type', 'start'],
  li: ['type', 'value'],
  dl: [],
  dt: [],
  dd: [],
  table: ['border', 'cellpadding', 'cellspacing', 'frame', 'rules', 'summary'],
  caption: [],
  thead: [],
  tbody: [],
  tfoot: [],
  tr: [],
  th: ['colspan', 'rowspan', 'nowrap', 'scope', 'headers', 'abbr'],
  td: ['colspan', 'rowspan', 'nowrap', 'headers'],
  colgroup: ['span'],
  col: ['span'],
  img: ['src', 'alt', 'border', 'hspace', 'vspace'],
  a: ['href', 'name'],
};
// Elements whose content is never part of a printed document, or that load or embed
// something (or hold markup that one HTML reader sees as text and another as tags).
const DROPPED_WITH_CONTENT = new Set([
  'script',
  'noscript',
  'template',
  'iframe',
  'frame',
  'frameset',
  'noframes',
  'object',
  'embed',
  'noembed',
  'applet',
  'param',
  'link',
  'base',
  'meta',
  'video',
  'audio',
  'source',
  'track',
  'picture',
  'bgsound',
  'svg',
  'math',
  'canvas',
  'map',
  'area',
  'input',
  'button',
  'select',
  'textarea',
  'option',
  'optgroup',
  'datalist',
  'output',
  'portal',
  'xml',
]);
// LibreOffice's HTML import reads these raster types from a data: URI; SVG can itself reference files.
const EMBEDDABLE_IMAGE = /^data:image\/(?:png|jpe?g|gif|bmp|webp);base64,[a-z0-9+/=\s]*$/i;
// A link is only clicked by a reader of the PDF; still, no file: or script links.
const CLICKABLE = /^(?:https?:\/\/|mailto:|#)/i;
// Deeper than this is no document anyone writes; refusing it keeps every later step (and the
// serialiser, which recurses) far from the stack limit.
const MAX_DEPTH = 256;

interface HtmlNode {
  type: string;
  name?: string;
  attribs?: Record<string, string>;
  children?: HtmlNode[];
  data?: string;
}

/**
 * Rewrites a parsed HTML template to what an allow-list permits, so LibreOffice's import has
 * nothing to fetch or read: only the elements and attributes listed above, images only from
 * data: URIs of raster types, links only to http(s), mailto or an anchor, CSS only through the
 * property allow-list (sanitize-css.ts), no comments, no doctype (the caller writes its own).
 * Returns what it removed, one entry per kind (e.g. `<img src="https://…">`).
 *
 * Remote images and stylesheets are stripped rather than refused: templates exported from
 * other tools routinely link a web font or a tracking pixel. A remote picture belongs in an
 * `{%name}` image tag, fetched at render time through the private-address guard.
 */
export function sanitizeHtml($: CheerioAPI, options: { css?: CssProfile; root?: Document } = {}): string[] {
  const css = options.css ?? 'office';
  const removed = new Set<string>();
  const root = options.root ?? $.root()[0];
  const pending: { node: HtmlNode; depth: number }[] = [{ node: root as unknown as HtmlNode, depth: 0 }];
  while (pending.length > 0) {
    const { node, depth } = pending.pop()!;
    for (const child of [...(node.children ?? [])]) {
      const kept = sanitizeNode($, child, depth + 1, (what) => removed.add(what), css);
      if (kept) pending.push({ node: kept, depth: depth + 1 });
    }
  }
  return [...removed];
}

/** Sanitises one node; returns the node whose children still need a look (if any). */
function sanitizeNode($: CheerioAPI, node: HtmlNode, depth: number, note: (what: string) => void, css: CssProfile): HtmlNode | undefined {
  const wrapped = $(node as never);
  if (node.type === 'text') return undefined;
  if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') {
    if (node.type === 'comment') note('comments');
    wrapped.remove(); // comments, doctype and processing instructions, CDATA
    return undefined;
  }
  const name = (node.name ?? '').toLowerCase();
  if (depth > MAX_DEPTH) {
    note(`elements nested deeper than ${MAX_DEPTH} levels`);
    wrapped.remove();
    return undefined;
  }
  if (name === 'xmp' || name === 'plaintext' || name === 'listing') {
    wrapped.replaceWith($('<pre>').text(wrapped.text()));
    return undefined;
  }
  if (DROPPED_WITH_CONTENT.has(name)) {
    note(`<${name}>`);
    wrapped.remove();
    return undefined;
  }
  const allowed = ELEMENTS[name];
  if (!allowed) {
    // Unknown or unwanted wrappers (<form>, <custom-tag>...): their content stays.
    note(`<${name}>`);
    const children = [...(node.children ?? [])];
    wrapped.replaceWith(wrapped.contents());
    // The children now sit where the element was; they are looked at as the parent's.
    return children.length > 0 ? { type: 'fragment', children } : undefined;
  }
  if (name === 'img' && !EMBEDDABLE_IMAGE.test((node.attribs?.src ?? '').trim())) {
    const src = (node.attribs?.src ?? '').trim();
    note(src.startsWith('data:') ? '<img> with an unsupported data: image type' : `<img src="${src.slice(0, 100)}">`);
    wrapped.remove();
    return undefined;
  }
  if (name === 'img') refuseOversizedImage(node.attribs!.src!.trim());
  sanitizeAttributes(node, allowed, note, css);
  if (name === 'style') {
    const sanitized = sanitizeStylesheet(wrapped.text(), css);
    if (sanitized.changed) note('CSS outside the allow-list (url(), @import, unknown properties) in a <style> block');
    wrapped.text(sanitized.css);
    return undefined;
  }
  if (name === 'title') {
    wrapped.text(wrapped.text());
    return undefined;
  }
  return node;
}

/**
 * A data: image is decoded by LibreOffice's HTML import (and a browser) before any later check
 * sees it: its header's pixels and frames are bounded here, as a DOCX template's pictures are.
 */
function refuseOversizedImage(src: string): void {
  const bytes = Buffer.from(src.slice(src.indexOf(',') + 1), 'base64');
  const problem = imageBoundsProblem(bytes, DEFAULT_IMAGE_BOUNDS);
  if (problem) throw new TemplateError('invalid', `An <img> data: image ${problem}; make it smaller and upload the template again`);
}

function sanitizeAttributes(node: HtmlNode, allowed: string[], note: (what: string) => void, profile: CssProfile): void {
  const attributes = node.attribs ?? {};
  for (const [attribute, value] of Object.entries(attributes)) {
    const name = attribute.toLowerCase();
    let keep = GLOBAL_ATTRIBUTES.includes(name) || PAGE_ATTRIBUTES.includes(name) || allowed.includes(name);
    // eslint-disable-next-line no-control-regex -- control characters and spaces are what browsers strip from a URL before reading its scheme
    if (keep && name === 'href') keep = CLICKABLE.test(value.replace(/[\u0000-\u0020]/g, ''));
    if (keep && name === 'style') {
      const { css, changed } = sanitizeDeclarations(value, profile);
      if (changed) note('CSS outside the allow-list (url(), unknown properties) in a style attribute');
      if (css) attributes[attribute] = css;
      else keep = false;
    }
    if (!keep) {
      note(`${name} attribute`);
      delete attributes[attribute];
    }
  }
}
