import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element, Text } from 'domhandler';
import { issuesFromDocxtemplater } from '../docxtemplater-errors';
import type { ImageData } from '../image-module';
import { checkTagExpressions } from '../expressions/check-tags';
import { expressionParser } from '../expressions/docx-parser';
import { DocumentBarcodes } from '../document-barcodes';
import { checkOutputSize, type FillParser } from '../render/estimate-output';
import { missingValueRecorder } from '../render/missing-values';
import { RenderInputError } from '../render/render-error';
import { DEFAULT_LOCALE, prepareRenderData } from '../render/validate-input';
import { correctedName, type CorrectedToken } from '../correct-token-names';
import type { TagOccurrence } from '../tag-scanner';
import { TemplateError, type TemplateIssue } from '../template-error';
import { detectVariables, type TemplateVariable } from '../variables';
import { decodeHtml } from './decode-html';
import { compileHtml, decodeTagText, type TagParser } from './html-templater';
import { sectionsAroundRows, sectionsIntoElements } from './html-sections';
import { printableHtml, type PrintableHtml } from './print-layout';
import { sanitizeHtml } from './sanitize-html';
import { cheerioLibrary } from './html-libraries';
import { rememberedByText } from '../remembered';

export interface PreparedHtmlTemplate {
  /** The sanitised template to store: what Chromium prints once filled. */
  html: string;
  variables: TemplateVariable[];
  /** The same template with sections moved where LibreOffice's HTML import keeps them (the DOCX output's source). */
  docxSource: string;
  /** What the sanitiser stripped (remote images, scripts, stylesheets...). */
  removed: string[];
  /** Tag names with spaces rewritten with underscores, as for DOCX ("client name" → "client_name"). */
  correctedTokens: CorrectedToken[];
}

const TAG = /\{([^{}]*)\}/g;
const PREFIXES = new Set(['#', '^', '/', '%', '@']);
/** Words separated by spaces and nothing else (as correct-token-names.ts): a name with spaces, not an expression (`a * b`). */
const SPACED_NAME = /^[\p{L}\p{N}_]+(\s+[\p{L}\p{N}_]+)+$/u;

/** Rewrites tag names with whitespace in text and attribute values, as correctTokenNames does in a DOCX. */
function correctTagNames($: CheerioAPI): CorrectedToken[] {
  const corrections = new Map<string, string>();
  const correct = (text: string) =>
    text.replace(TAG, (raw, body: string) => {
      const inner = body.trim();
      const prefix = PREFIXES.has(inner[0] ?? '') ? inner[0]! : '';
      const name = inner.slice(prefix.length).trim();
      if (!SPACED_NAME.test(name)) return raw;
      corrections.set(name, correctedName(name));
      return `{${prefix}${correctedName(name)}}`;
    });
  const visit = (node: AnyNode) => {
    if (node.type === 'text') (node as Text).data = correct((node as Text).data);
    if (node.type === 'tag') {
      const element = node as Element;
      for (const [name, value] of Object.entries(element.attribs)) element.attribs[name] = correct(value);
    }
    if (node.type === 'tag' || node.type === 'root') for (const child of (node as Element).children) visit(child);
  };
  visit($.root()[0]!);
  return [...corrections].map(([from, to]) => ({ from, to }));
}

/**
 * Parsed without a browser's table and list fix-ups (htmlparser2), so a section tag written
 * between rows (`<tbody>{#items}<tr>…</tr>{/items}</tbody>`) stays where the author put it.
 */
const loadTemplate = (html: string): CheerioAPI => cheerioLibrary().load(html, { xml: { xmlMode: false, decodeEntities: true } });

/**
 * The text the tags are read from: the template's markup with each stylesheet set aside
 * (CSS is full of braces that are not tags) behind a marker restored after filling. Worked
 * out once per stored template (its text is read again for every document).
 */
const templateText = rememberedByText(templateTextOf, 2 * 1024 * 1024);

function templateTextOf(html: string): { text: string; restore: (filled: string) => string } {
  const $ = loadTemplate(html);
  const sheets: string[] = [];
  $('style').each((_, style) => {
    sheets.push($(style).text());
    $(style).text(`\uE000${sheets.length - 1}\uE001`);
  });
  return { text: $.html(), restore: sheetsRestorer(sheets) };
}

// Made apart from the parse above: a closure made there would keep the parsed template alive with it.
function sheetsRestorer(sheets: string[]): (filled: string) => string {
  return (filled) => filled.replace(/\uE000(\d+)\uE001/g, (_, index: string) => sheets[Number(index)] ?? '');
}

/**
 * Turns an uploaded HTML template into a stored one: sanitised for the browser, §2's cell
 * form rewritten to the row form, every syntax problem listed, and the variables found by
 * the same inspection as a DOCX template's. Throws TemplateError('invalid' | 'syntax').
 */
export function prepareHtmlTemplate(upload: Buffer, options: { parser?: TagParser } = {}): PreparedHtmlTemplate {
  const $ = loadTemplate(decodeHtml(upload));
  const removed = sanitizeHtml($, { css: 'browser' });
  sectionsAroundRows($);
  const correctedTokens = correctTagNames($);
  const html = $.html();
  let compiled;
  try {
    compiled = compileHtml(templateText(html).text, options);
  } catch (error) {
    const issues = issuesFromDocxtemplater(error);
    if (!issues) throw error;
    throw syntaxError(issues.map((issue) => ({ ...issue, part: 'template' })));
  }
  // Every tag that holds an expression must parse (API §11), as in a DOCX; a corrected `{client name}` is a name.
  const expressionIssues = checkTagExpressions(
    tagOccurrences(templateText(html).text).filter((tag) => !correctedTokens.some((c) => c.to === tag.name)),
    'template',
  );
  if (expressionIssues.length > 0) throw syntaxError(expressionIssues);
  const raw = compiled.tags.filter((tag) => tag.value.startsWith('@'));
  if (raw.length > 0) {
    throw syntaxError(raw.map((tag) => ({ tag: `{${tag.value}}`, part: 'template', message: 'Raw XML tags ({@name}) are not supported; use {name}' })));
  }
  const { variables, issues } = detectVariables(compiled.tags);
  if (issues.length > 0) throw syntaxError(issues);
  const forDocx = loadTemplate(html);
  sectionsIntoElements(forDocx);
  return { html, variables, docxSource: forDocx.html(), removed, correctedTokens };
}

/**
 * Fills a stored HTML template with a document's input: values checked and written exactly
 * as for DOCX (prepareRenderData: types, formats, locale), inserted as escaped text, images
 * as data: URIs; a missing value fails the render naming it. Returns what Chromium prints.
 */
export function fillHtml(
  templateHtml: string,
  variables: TemplateVariable[],
  input: Record<string, unknown>,
  images: Map<string, ImageData> = new Map(),
  options: { locale?: string; maxOutputBytes?: number; expressionTimeoutMs?: number; parser?: TagParser } = {},
): PrintableHtml {
  const data = prepareRenderData(variables, input, options.locale);
  const { text, restore } = templateText(templateHtml);
  const { missing, nullGetter } = missingValueRecorder();
  let filled: string;
  try {
    // The expression language of API §11, exactly as a DOCX fill uses it (a plain name is docxtemplater's lookup).
    const expressions = expressionParser({ locale: options.locale ?? DEFAULT_LOCALE, timeoutMs: options.expressionTimeoutMs });
    const parser = options.parser ?? (expressions.parser as TagParser);
    const barcodes = new DocumentBarcodes();
    const compiled = compileHtml(text, { images, parser, barcodes });
    // Before filling, from the compiled template and the data: a loop bomb is refused without the memory.
    if (options.maxOutputBytes !== undefined) {
      checkOutputSize([compiled.postparsed as never], data, images, options.maxOutputBytes, parser as FillParser, barcodes);
      expressions.restartBudget();
    }
    filled = compiled.render(data, nullGetter as never);
    if (expressions.state.failure) throw expressions.state.failure;
  } catch (error) {
    if (error instanceof RenderInputError) throw error;
    const inner = (error as { properties?: { errors?: { properties?: { explanation?: string } }[] } }).properties?.errors?.[0];
    throw new RenderInputError(inner?.properties?.explanation ?? `The template could not be filled: ${(error as Error).message}`);
  }
  if (missing.length > 0) throw new RenderInputError(missing[0]!);
  if (options.maxOutputBytes !== undefined && filled.length > options.maxOutputBytes) {
    throw new RenderInputError(
      `The filled document would be larger than ${Math.round(options.maxOutputBytes / 1024 / 1024)} MiB (MAX_OUTPUT_BYTES); send fewer rows`,
    );
  }
  try {
    return printableHtml(restore(filled));
  } catch (error) {
    // An image the input put in (fetched under a larger MAX_IMAGE_PIXELS) is the input's problem, not a failure to retry.
    if (error instanceof TemplateError) {
      const problem = error.message.replace(/; make it smaller and upload the template again$/, '');
      throw new RenderInputError(`The filled document cannot be printed: ${problem}; send a smaller image`);
    }
    throw error;
  }
}

/** A stored template as uploaded (tags visible), for its preview. */
export function printableTemplate(templateHtml: string): PrintableHtml {
  return printableHtml(templateHtml);
}

/** The tags of the template text in the shape the expression check reads. */
function tagOccurrences(text: string): TagOccurrence[] {
  const tags: TagOccurrence[] = [];
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '{') open = i;
    else if (text[i] === '}' && open >= 0) {
      const raw = decodeTagText(text.slice(open, i + 1));
      const inner = raw.slice(1, -1).trim();
      const prefix = PREFIXES.has(inner[0] ?? '') ? inner[0]! : '';
      tags.push({ raw, prefix, name: inner.slice(prefix.length).trim(), start: open, end: i + 1, table: null });
      open = -1;
    }
  }
  return tags;
}

function syntaxError(issues: TemplateIssue[]): TemplateError {
  const count = issues.length === 1 ? '1 error' : `${issues.length} errors`;
  return new TemplateError('syntax', `The template has ${count}; fix ${issues.length === 1 ? 'it' : 'them'} and upload again`, issues);
}
