import { BarcodeRequest, compileExpression, evaluate, EvaluationBudget, ExpressionError, isForbiddenName, plainPath, valueToText } from '@docgen/expressions';
import { IMAGE_MODULE_NAME } from '../image-module';
import { RenderInputError } from '../render/render-error';
import { rawValues } from './raw-values';

/** Default of EXPRESSION_TIMEOUT_MS: all of one document's expressions together. */
export const DEFAULT_EXPRESSION_TIMEOUT_MS = 1000;

interface ParsedTag {
  module?: string;
  inverted?: boolean;
}

interface ParserContext {
  num: number;
  scopeList: unknown[];
  scopePath: string[];
  scopePathItem: number[];
}

/** How the author wrote the tag: `{#total > 1000}`, `{%sku | barcode:"ean13"}`. */
export function tagAsWritten(expression: string, part: ParsedTag | undefined): string {
  const prefix = part?.module === 'loop' ? (part.inverted ? '^' : '#') : part?.module === IMAGE_MODULE_NAME ? '%' : '';
  return `{${prefix}${expression}}`;
}

/** ' in item 2 of "items"' for a tag inside loops. */
function whereIn(context: ParserContext): string {
  const loops = context.scopePath;
  if (loops.length === 0) return '';
  const where = loops.map((loop, depth) => `item ${context.scopePathItem[depth]! + 1} of "${loop}"`).reverse();
  return ` in ${where.join(' in ')}`;
}

/** Most tags are one name: read without parsing (the fill's hot path). */
const SIMPLE_NAME = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;
const KEYWORDS = new Set(['true', 'false', 'null']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

export interface ExpressionParserOptions {
  locale: string;
  timeoutMs?: number;
}

/**
 * docxtemplater's `parser` option: every tag is an expression of @docgen/expressions.
 * A single name keeps docxtemplater's own meaning (the value as prepared for printing, read
 * from the innermost scope that has it, missing → nullGetter). Anything else is evaluated on
 * the input as sent (numbers exact, before any formatting) and printed by the language.
 * A failure is kept in `failure` (docxtemplater wraps what a parser throws) and names the tag.
 */
export function expressionParser(options: ExpressionParserOptions) {
  let budget = new EvaluationBudget(options.timeoutMs ?? DEFAULT_EXPRESSION_TIMEOUT_MS);
  const state: { failure: RenderInputError | undefined } = { failure: undefined };

  const fail = (tag: string, context: ParserContext, error: unknown): never => {
    if (!(error instanceof ExpressionError)) throw error;
    state.failure ??= new RenderInputError(`Tag "${tag}"${whereIn(context)}: ${error.message}`);
    throw state.failure;
  };

  const readerOf = (expression: string, part: ParsedTag | undefined) => {
    const tag = tagAsWritten(expression, part);
    const trimmed = expression.trim();
    const simple = SIMPLE_NAME.test(trimmed) && !KEYWORDS.has(trimmed);
    const compiled = simple ? undefined : compileExpression(trimmed, { image: part?.module === IMAGE_MODULE_NAME });
    const path = compiled?.ok ? plainPath(compiled.ast) : undefined;

    if (simple || trimmed === '.' || (path && path.length === 1)) {
      // A plain name, as docxtemplater's default parser reads it: own fields only.
      return {
        get: (scope: unknown) =>
          trimmed === '.' ? scope : isObject(scope) && !isForbiddenName(trimmed) && Object.hasOwn(scope, trimmed) ? scope[trimmed] : undefined,
      };
    }
    if (!compiled) throw new Error('unreachable: a simple name is read above');
    return {
      get: (scope: unknown, context: ParserContext) => {
        // Once for the whole chain: docxtemplater asks again with outer scopes on null.
        if (context.num !== context.scopeList.length - 1) return undefined;
        const chain = context.scopeList.slice(0, context.num + 1).reverse();
        // A tag whose whole text is a key of the data keeps the meaning it had before tags
        // could compute (`{client.name}`, `{client-name}` in a template stored back then).
        const literal = chain.find((s) => isObject(s) && Object.hasOwn(s, trimmed));
        if (literal) return (literal as Record<string, unknown>)[trimmed];
        // Templates stored before the upload check existed: the problem surfaces here, named.
        if (!compiled.ok) return fail(tag, context, new ExpressionError(compiled.errors.map((e) => e.message).join('; ')));
        try {
          // A plain member path (`{client.credit}`) prints the prepared value, in its member's
          // format, as a plain name does; anything that computes reads the values as sent.
          const scopes = path ? chain : chain.map((s) => rawValues(s));
          return shape(evaluate(compiled.ast, scopes, { locale: options.locale, budget }), part, tag, options.locale);
        } catch (error) {
          return fail(tag, context, error);
        }
      },
    };
  };
  // One reader per tag text and kind for the whole fill: the output estimate reads the tags
  // before docxtemplater does, and compiling an expression twice doubled its cost.
  const readers = new Map<string, { get: (scope: unknown, context: ParserContext) => unknown }>();
  const parser = (expression: string, meta?: { tag?: ParsedTag }) => {
    const key = `${meta?.tag?.module ?? ''}${meta?.tag?.inverted ? '^' : ''}\n${expression}`;
    let reader = readers.get(key);
    if (!reader) readers.set(key, (reader = readerOf(expression, meta?.tag)));
    return reader;
  };

  /** The fill's expressions get the whole budget, whatever the output estimate spent reading them first. */
  const restartBudget = () => {
    budget = new EvaluationBudget(options.timeoutMs ?? DEFAULT_EXPRESSION_TIMEOUT_MS);
  };

  return { parser, state, restartBudget };
}

/** What docxtemplater expects of each kind of tag: text, a section's value, an image source. */
function shape(value: unknown, part: ParsedTag | undefined, tag: string, locale: string): unknown {
  if (part?.module === 'loop') return value;
  if (part?.module === IMAGE_MODULE_NAME) return value instanceof BarcodeRequest ? value : value === null || value === undefined ? '' : String(value);
  return valueToText(value, locale, `"${tag}"`);
}
