/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, synchronously (below) */
import type * as Cheerio from 'cheerio';
import type * as CssTree from 'css-tree';
import type * as Parse5 from 'parse5';
import type * as Parse5Adapter from 'parse5-htmlparser2-tree-adapter';

let cheerio: typeof Cheerio | undefined;
let cssTree: typeof CssTree | undefined;
let parse5: typeof Parse5 | undefined;
let parse5Adapter: typeof Parse5Adapter | undefined;

/**
 * cheerio, css-tree and parse5 (cheerio's HTML parser, with its tree adapter), loaded by the
 * first HTML template read, filled or printed, not when a gateway, an upload-check thread or a
 * render worker starts: together about 23 MB and 0.2 s that each paid at start for HTML
 * templates only some organisations use (docs/BENCHMARKS.md). `require`, not `import()`:
 * filling and printing HTML are synchronous.
 */
export const cheerioLibrary = (): typeof Cheerio => (cheerio ??= require('cheerio') as typeof Cheerio);
export const cssTreeLibrary = (): typeof CssTree => (cssTree ??= require('css-tree') as typeof CssTree);
export const parse5Library = (): typeof Parse5 => (parse5 ??= require('parse5') as typeof Parse5);
export const parse5AdapterLibrary = (): typeof Parse5Adapter => (parse5Adapter ??= require('parse5-htmlparser2-tree-adapter') as typeof Parse5Adapter);
