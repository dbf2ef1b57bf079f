import type * as csstree from 'css-tree';
import { cssTreeLibrary } from './html-libraries';
import { rememberedByText } from '../remembered';

// What a printed template can use. Everything else goes, not only what is known to fetch:
// a property LibreOffice might one day resolve as a URL is not on this list.
const PROPERTIES = new Set([
  'color',
  'background',
  'background-color',
  'opacity',
  'visibility',
  'font',
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'font-variant',
  'font-stretch',
  'text-align',
  'text-indent',
  'text-decoration',
  'text-transform',
  'text-shadow',
  'vertical-align',
  'line-height',
  'letter-spacing',
  'word-spacing',
  'white-space',
  'direction',
  'unicode-bidi',
  'so-language',
  'margin',
  'margin-top',
  'margin-right',
  'margin-bottom',
  'margin-left',
  'padding',
  'padding-top',
  'padding-right',
  'padding-bottom',
  'padding-left',
  'border',
  'border-width',
  'border-style',
  'border-color',
  'border-radius',
  'border-collapse',
  'border-spacing',
  ...['top', 'right', 'bottom', 'left'].flatMap((side) => [`border-${side}`, `border-${side}-width`, `border-${side}-style`, `border-${side}-color`]),
  'width',
  'height',
  'min-width',
  'max-width',
  'min-height',
  'max-height',
  'size',
  'display',
  'float',
  'clear',
  'overflow',
  'table-layout',
  'caption-side',
  'empty-cells',
  'list-style',
  'list-style-type',
  'list-style-position',
  'page-break-before',
  'page-break-after',
  'page-break-inside',
  'break-before',
  'break-after',
  'break-inside',
  'orphans',
  'widows',
]);
// Colour functions only: url(), image-set(), var(), attr(), expression() and the rest go.
const FUNCTIONS = new Set(['rgb', 'rgba', 'hsl', 'hsla']);
const AT_RULES = new Set(['page', 'media']);

/**
 * 'office': what LibreOffice's HTML import reads (the DOCX made from an HTML template).
 * 'browser': what Chromium prints: layout (flex, grid, position), decoration and counters
 * too. Neither lets anything be fetched: url(), image-set(), @import and @font-face never
 * pass, and functions are an allow-list of ones that compute rather than load.
 */
export type CssProfile = 'office' | 'browser';

const BROWSER_PROPERTIES = new Set([
  ...PROPERTIES,
  ...['flex', 'flex-direction', 'flex-wrap', 'flex-flow', 'flex-grow', 'flex-shrink', 'flex-basis', 'order'],
  ...['justify-content', 'justify-items', 'justify-self', 'align-items', 'align-self', 'align-content', 'place-items', 'place-content', 'place-self'],
  ...['gap', 'row-gap', 'column-gap', 'grid', 'grid-template', 'grid-template-columns', 'grid-template-rows', 'grid-template-areas'],
  ...['grid-auto-flow', 'grid-auto-columns', 'grid-auto-rows', 'grid-column', 'grid-row', 'grid-area', 'grid-column-start', 'grid-column-end'],
  ...['grid-row-start', 'grid-row-end', 'position', 'top', 'right', 'bottom', 'left', 'inset', 'z-index', 'box-sizing', 'box-shadow'],
  ...['border-top-left-radius', 'border-top-right-radius', 'border-bottom-left-radius', 'border-bottom-right-radius', 'outline'],
  ...['outline-width', 'outline-style', 'outline-color', 'outline-offset', 'object-fit', 'object-position', 'aspect-ratio'],
  ...['transform', 'transform-origin', 'text-overflow', 'overflow-wrap', 'word-break', 'hyphens', 'tab-size', 'overflow-x', 'overflow-y'],
  ...['columns', 'column-count', 'column-width', 'column-rule', 'column-span', 'column-fill', 'font-variant-numeric', 'font-feature-settings'],
  ...['print-color-adjust', '-webkit-print-color-adjust', 'counter-reset', 'counter-increment', 'content', 'quotes', 'page', 'marks'],
  ...['text-align-last', 'text-decoration-line', 'text-decoration-color', 'text-decoration-style', 'text-underline-offset', 'writing-mode'],
  ...['background-position', 'background-size', 'background-repeat', 'background-clip', 'background-origin', 'list-style-image'],
  ...['max-inline-size', 'inline-size', 'block-size', 'margin-inline', 'margin-block', 'padding-inline', 'padding-block', 'float'],
]);
// list-style-image and background take only what FUNCTIONS lets through: gradients, never a url().
const BROWSER_FUNCTIONS = new Set([
  ...FUNCTIONS,
  ...['calc', 'min', 'max', 'clamp', 'repeat', 'minmax', 'fit-content', 'counter', 'counters', 'linear-gradient', 'radial-gradient'],
  ...['repeating-linear-gradient', 'repeating-radial-gradient', 'rotate', 'translate', 'translatex', 'translatey', 'scale', 'skew'],
]);

interface Profile {
  properties: Set<string>;
  functions: Set<string>;
}

const PROFILES: Record<CssProfile, Profile> = {
  office: { properties: PROPERTIES, functions: FUNCTIONS },
  browser: { properties: BROWSER_PROPERTIES, functions: BROWSER_FUNCTIONS },
};

/**
 * A style attribute's declarations reduced to the allowed properties with plain values
 * (no url() or other functions but colours, no escapes, nothing the parser could not read).
 */
export function sanitizeDeclarations(style: string, profile: CssProfile = 'office'): Sanitized {
  return rememberedDeclarations[profile](style);
}

/**
 * A `<style>` block reduced to rules of allowed declarations, `@page` and `@media` (nothing
 * imported, no fonts loaded). The result never holds `<` or a backslash, so no HTML reader
 * can see the block end early or read an escape differently.
 */
export function sanitizeStylesheet(css: string, profile: CssProfile = 'office'): Sanitized {
  return rememberedStylesheets[profile](css);
}

interface Sanitized {
  css: string;
  changed: boolean;
}

// Every document of an HTML template carries the template's style sheets and style attributes
// again, sanitised again after the fill (print-layout.ts): each text is worked out once.
const REMEMBERED_CHARS = 1024 * 1024;
const rememberedDeclarations: Record<CssProfile, (style: string) => Sanitized> = {
  office: rememberedByText((style) => declarationsOf(style, 'office'), REMEMBERED_CHARS),
  browser: rememberedByText((style) => declarationsOf(style, 'browser'), REMEMBERED_CHARS),
};
const rememberedStylesheets: Record<CssProfile, (css: string) => Sanitized> = {
  office: rememberedByText((css) => stylesheetOf(css, 'office'), REMEMBERED_CHARS),
  browser: rememberedByText((css) => stylesheetOf(css, 'browser'), REMEMBERED_CHARS),
};

function declarationsOf(style: string, profile: CssProfile): Sanitized {
  let list: csstree.CssNode;
  try {
    list = cssTreeLibrary().parse(style, { context: 'declarationList', parseValue: true });
  } catch {
    return { css: '', changed: style.trim() !== '' };
  }
  const kept = keptDeclarations(list, PROFILES[profile]);
  const css = kept.join('; ');
  return { css, changed: normalise(css) !== normalise(style) };
}

function stylesheetOf(css: string, profile: CssProfile): Sanitized {
  let sheet: csstree.CssNode;
  try {
    sheet = cssTreeLibrary().parse(css, { parseValue: true, parseAtrulePrelude: true, parseRulePrelude: true });
  } catch {
    return { css: '', changed: css.trim() !== '' };
  }
  const out = sheet.type === 'StyleSheet' ? rules(sheet.children.toArray(), PROFILES[profile]) : [];
  const result = out.join('\n');
  return { css: result, changed: normalise(result) !== normalise(css) };
}

function rules(nodes: csstree.CssNode[], profile: Profile): string[] {
  const out: string[] = [];
  for (const node of nodes) {
    if (node.type === 'Rule') {
      const prelude = cssTreeLibrary().generate(node.prelude);
      if (!safeText(prelude)) continue;
      out.push(`${prelude} { ${keptDeclarations(node.block, profile).join('; ')} }`);
    } else if (node.type === 'Atrule' && AT_RULES.has(node.name.toLowerCase()) && node.block) {
      const prelude = node.prelude ? cssTreeLibrary().generate(node.prelude) : '';
      if (!safeText(prelude)) continue;
      const head = `@${node.name.toLowerCase()}${prelude ? ` ${prelude}` : ''}`;
      if (node.name.toLowerCase() === 'page') out.push(`${head} { ${keptDeclarations(node.block, profile).join('; ')} }`);
      else out.push(`${head} {\n${rules(node.block.children.toArray(), profile).join('\n')}\n}`);
    }
  }
  return out;
}

function keptDeclarations(block: csstree.CssNode, profile: Profile): string[] {
  const kept: string[] = [];
  cssTreeLibrary().walk(block, {
    visit: 'Declaration',
    enter(declaration) {
      if (!profile.properties.has(declaration.property.toLowerCase()) || !plainValue(declaration.value, profile.functions)) return;
      const text = `${declaration.property.toLowerCase()}: ${cssTreeLibrary().generate(declaration.value)}${declaration.important ? ' !important' : ''}`;
      if (safeText(text)) kept.push(text);
    },
  });
  return kept;
}

function plainValue(value: csstree.CssNode, functions: Set<string>): boolean {
  let plain = value.type === 'Value';
  cssTreeLibrary().walk(value, (node) => {
    if (node.type === 'Url' || node.type === 'Raw') plain = false;
    else if (node.type === 'Function' && !functions.has(node.name.toLowerCase())) plain = false;
  });
  return plain;
}

function safeText(text: string): boolean {
  return !/[<\\]|url\s*\(|@import/i.test(text);
}

function normalise(css: string): string {
  return css.replace(/[\s;]+/g, '');
}
