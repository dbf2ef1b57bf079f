/* eslint-disable @typescript-eslint/no-require-imports -- docxtemplater's text engine is only reachable through its CommonJS files */
import { BarcodeRequest } from '@docgen/expressions';
import { DocumentBarcodes } from '../document-barcodes';
import { IMAGE_MODULE_NAME, type ImageData } from '../image-module';
import { RenderInputError } from '../render/render-error';
import type { InspectedPart } from '../variables';

// docxtemplater's own lexer, parser, loop and render steps, run on HTML text as its
// TxtTemplater does (which takes no modules of its own): the tag syntax, sections, scope
// chain and inspection are exactly DOCX's, so both formats share one model of variables.
const XmlTemplater = require('docxtemplater/js/xml-templater.js');
const Lexer = require('docxtemplater/js/lexer.js');
const Parser = require('docxtemplater/js/parser.js');
const createScope = require('docxtemplater/js/scope-manager.js');
const { getDefaults } = require('docxtemplater/js/doc-utils.js');
const { throwMultiError } = require('docxtemplater/js/errors.js');
const loopModule = require('docxtemplater/js/modules/loop.js');
const expandPairTrait = require('docxtemplater/js/modules/expand-pair-trait.js');
const renderModule = require('docxtemplater/js/modules/render.js');
const wrapModule = require('docxtemplater/js/module-wrapper.js');

/**
 * How a tag's text becomes a value: docxtemplater's `parser` option. Without one, docxtemplater's
 * default lookup (the name in the current scope, then each enclosing loop's); the expressions
 * language plugs in here, for HTML as for DOCX.
 */
export type TagParser = (tag: string, meta?: unknown) => { get: (scope: unknown, context: unknown) => unknown };

interface Part {
  type: string;
  value: string;
  module?: string;
  subparsed?: Part[];
}

interface ScopeManager {
  getValue: (tag: string, meta: { part: Part }) => unknown;
}

interface RenderOptions {
  scopeManager: ScopeManager;
  nullGetter: (part: Part) => unknown;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** A value as HTML text: escaped for text and (quoted) attribute values alike, line breaks kept. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const asText = (value: unknown) => (value === undefined || value === null ? '' : String(value));

/** `{name}`: the value as escaped text, never markup; a newline is a line break as in DOCX. */
function textValueModule() {
  return wrapModule({
    name: 'DocgenHtmlText',
    render(part: Part, options: RenderOptions) {
      if (part.type !== 'placeholder' || part.module) return null;
      let value = options.scopeManager.getValue(part.value, { part });
      value ??= options.nullGetter(part);
      return { value: escapeHtml(asText(value)).replace(/\r?\n/g, '<br>') };
    },
  });
}

/**
 * `{%name}`: the picture fetched beforehand, inlined as a data: URI (nothing for Chromium to
 * fetch); `{%value | qrcode}` / `{%value | barcode:"…"}`: drawn here, as the DOCX image module does.
 */
function imageModule(images: Map<string, ImageData>, barcodes: DocumentBarcodes) {
  return wrapModule({
    name: 'DocgenHtmlImage',
    matchers: () => [['%', IMAGE_MODULE_NAME, {}]],
    render(part: Part, options: RenderOptions) {
      if (part.module !== IMAGE_MODULE_NAME) return null;
      const value = options.scopeManager.getValue(part.value, { part });
      if (value === undefined || value === null || value === '') return { value: '' };
      const image = value instanceof BarcodeRequest ? barcodes.draw(value, part.value) : images.get(String(value));
      if (!image) throw new RenderInputError(`Image "${part.value}" has no fetched image for its value`);
      const uri = `data:image/${image.extension};base64,${image.data.toString('base64')}`;
      return { value: `<img src="${uri}" width="${image.width}" alt="" style="max-width: 100%; height: auto">` };
    },
  });
}

export interface CompiledHtml {
  /** Tags as docxtemplater's inspection lists them: the input of detectVariables. */
  tags: InspectedPart[];
  /** docxtemplater's compiled template, for checkOutputSize before filling. */
  postparsed: unknown[];
  render: (data: Record<string, unknown>, nullGetter: (part: Part, scopeManager: unknown) => unknown) => string;
}

/**
 * Compiles HTML text (tags anywhere in text or attribute values) with docxtemplater's engine.
 * Throws docxtemplater's multi-error for syntax problems (read by issuesFromDocxtemplater).
 */
export function compileHtml(text: string, options: { images?: Map<string, ImageData>; parser?: TagParser; barcodes?: DocumentBarcodes } = {}): CompiledHtml {
  const settings: Record<string, unknown> = { linebreaks: true, errorLogging: false, ...(options.parser ? { parser: options.parser } : {}) };
  const xmltOptions = { fileType: 'text', modules: [] };
  const xmlt = new XmlTemplater(text, xmltOptions);
  xmlt.fileTypeConfig = settings.fileTypeConfig = { droppedTagsInsidePlaceholder: [], expandTags: [] };
  const defaults = getDefaults();
  for (const key of Object.keys(defaults)) {
    xmlt[key] = settings[key] = settings[key] ?? defaults[key];
  }
  xmlt.modules = [
    loopModule(),
    expandPairTrait(),
    imageModule(options.images ?? new Map(), options.barcodes ?? new DocumentBarcodes()),
    textValueModule(),
    renderModule(),
  ];
  for (const module of xmlt.modules) {
    module.optionsTransformer(settings, { fileTypeConfig: xmlt.fileTypeConfig, ...xmltOptions, parser: xmlt.parser, options: xmlt });
  }
  xmlt.allErrors = [];
  xmlt.xmllexed = [
    { type: 'tag', position: 'start', value: '', text: true },
    { type: 'content', value: text },
    { type: 'tag', position: 'end', value: '' },
  ];
  const { lexed, errors } = Lexer.parse(xmlt.xmllexed, xmlt.delimiters, xmlt.syntax, xmlt.fileType);
  xmlt.allErrors.push(...errors);
  decodeTagTexts(lexed);
  xmlt.lexed = Parser.preparse(lexed, xmlt.modules, xmlt.getOptions());
  xmlt.parse();
  if (xmlt.allErrors.length > 0) throwMultiError(xmlt.allErrors);
  return {
    tags: structuredTags(xmlt.postparsed as Part[]),
    postparsed: xmlt.postparsed as unknown[],
    render: (data, nullGetter) => {
      xmlt.nullGetter = nullGetter;
      xmlt.scopeManager = createScope({ tags: data, parser: xmlt.parser });
      xmlt.render();
      if (xmlt.allErrors.length > 0) throwMultiError(xmlt.allErrors);
      const content: unknown = xmlt.content;
      return typeof content === 'string' ? content : new TextDecoder().decode(content as Uint8Array);
    },
  };
}

// What the HTML serialiser escapes in text and attribute values: a tag is read as the author wrote it.
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&apos;': "'", '&nbsp;': '\u00a0' };

/** `{a &amp;&amp; b &gt; 1}` as written, `{a && b > 1}`: the text between each pair of delimiters, unescaped. */
export function decodeTagText(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|apos|nbsp|#39);/g, (entity) => ENTITIES[entity]!);
}

function decodeTagTexts(lexed: { type: string; position?: string; value?: string }[]): void {
  let inTag = false;
  for (const token of lexed) {
    if (token.type === 'delimiter') inTag = token.position === 'start';
    else if (inTag && token.type === 'content' && token.value !== undefined) token.value = decodeTagText(token.value);
  }
}

function structuredTags(parts: Part[]): InspectedPart[] {
  return parts
    .filter((part) => part.type === 'placeholder')
    .map((part) => ({ type: part.type, value: part.value, module: part.module, ...(part.subparsed ? { subparsed: structuredTags(part.subparsed) } : {}) }));
}
