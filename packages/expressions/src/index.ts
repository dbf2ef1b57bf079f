/**
 * The template expression language (API §11), independent of any document format: the DOCX
 * filler (packages/templating) and the HTML filler call the same functions.
 *
 *   const compiled = compileExpression('items | sum:"price * quantity" | currency:"EUR"');
 *   if (!compiled.ok) → compiled.errors (each with its offset)
 *   inferVariables(compiled.ast) → the names read and their inferred types
 *   evaluate(compiled.ast, [scope], { locale, budget: new EvaluationBudget(1000) }) → a value
 *   valueToText(value, locale, tag) → what the tag prints
 */
import type { Expression, ExpressionIssue } from './ast';
import { checkExpression, type CheckOptions } from './check';
import { parseExpression } from './parse';

export type { Expression, ExpressionIssue } from './ast';
export { parseExpression, plainPath, isForbiddenName, MAX_EXPRESSION_LENGTH, MAX_NESTING } from './parse';
export { checkExpression, type CheckOptions } from './check';
export { inferVariables, type VariableUse, type InferredType } from './infer';
export { evaluate, valueToText, describePath, EvaluationBudget, type EvaluationContext } from './evaluate';
export { ExpressionError, ExpressionTimeoutError, BarcodeRequest, SYMBOLOGIES, type Symbology, truthy } from './values';
export { drawBarcode, type BarcodeImage } from './barcode';
export { formatDate, parseIsoDate } from './format-date';
export { filterNames } from './filters';
export { Decimal, toDecimal } from './decimal';

export type CompileResult = { ok: true; ast: Expression } | { ok: false; errors: ExpressionIssue[] };

/** Parses and checks one expression: what upload runs on every tag, and what rendering evaluates. */
export function compileExpression(text: string, options: CheckOptions = {}): CompileResult {
  const parsed = parseExpression(text);
  if (!parsed.ok) return parsed;
  const errors = checkExpression(parsed.ast, options);
  return errors.length > 0 ? { ok: false, errors } : parsed;
}
