/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, synchronously (below) */
import type * as Cheerio from 'cheerio';
import type * as CssTree from 'css-tree';

let cheerio: typeof Cheerio | undefined;
let cssTree: typeof CssTree | undefined;

/**
 * cheerio and css-tree, loaded by the first HTML template read, filled or printed, not when a
 * gateway, an upload-check thread or a render worker starts: together about 23 MB and 0.2 s
 * that each paid at start for HTML templates only some organisations use (docs/BENCHMARKS.md).
 * `require`, not `import()`: filling and printing HTML are synchronous.
 */
export const cheerioLibrary = (): typeof Cheerio => (cheerio ??= require('cheerio') as typeof Cheerio);
export const cssTreeLibrary = (): typeof CssTree => (cssTree ??= require('css-tree') as typeof CssTree);
