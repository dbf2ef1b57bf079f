import type { Expression } from './ast';
import { Decimal, isDecimal, MAX_EXPONENT, toDecimal } from './decimal';
import { filterSpec, type FilterArgument } from './filters';
import { formatDecimal } from './format-number';
import { isForbiddenName } from './parse';
import { BarcodeRequest, ExpressionError, ExpressionTimeoutError, isPlainObject, MAX_TEXT_LENGTH, plainText, shown, truthy } from './values';

/** Bounds one document's evaluation: all its expressions share one deadline. */
export class EvaluationBudget {
  private steps = 0;
  private deadline: number | undefined;

  constructor(readonly timeoutMs: number) {}

  /** Called once per node evaluated; the clock is read every 1024 steps. */
  tick(): void {
    this.deadline ??= performance.now() + this.timeoutMs;
    if ((++this.steps & 1023) === 0 && performance.now() > this.deadline) {
      throw new ExpressionTimeoutError(`The template's expressions took longer than ${this.timeoutMs} ms`);
    }
  }
}

export interface EvaluationContext {
  /** BCP 47 locale for numbers and dates. */
  locale: string;
  budget: EvaluationBudget;
}

/** `client.address.city`, `items[2]`: how a value is named in messages. */
export function describePath(node: Expression): string {
  switch (node.kind) {
    case 'name':
      return node.name;
    case 'member':
      return `${describePath(node.object)}.${node.property}`;
    case 'index':
      return `${describePath(node.object)}[${node.index.kind === 'literal' ? plainText(node.index.value) : '…'}]`;
    case 'filter':
      return `${describePath(node.input)} | ${node.name}`;
    default:
      return 'the value';
  }
}

const quoted = (node: Expression) => `"${describePath(node)}"`;

function member(object: unknown, property: string, node: Expression): unknown {
  if (object === null || object === undefined)
    throw new ExpressionError(`${quoted(node)} cannot be read: ${quoted(node.kind === 'member' ? node.object : node)} has no value`);
  if (property === 'length' && (typeof object === 'string' || Array.isArray(object))) return new Decimal(object.length);
  if (isForbiddenName(property) || !isPlainObject(object) || !Object.hasOwn(object, property)) {
    throw new ExpressionError(`${quoted(node)} is missing`);
  }
  return object[property];
}

function numberOperand(value: unknown, node: Expression): Decimal {
  if (value === null || value === undefined) throw new ExpressionError(`${quoted(node)} has no value`);
  const number = toDecimal(value);
  if (!number) throw new ExpressionError(`${quoted(node)} is not a number (${shown(value)})`);
  return number;
}

/** A number past ±10^100 (or Infinity - Infinity) is refused rather than printed as "∞" or "NaN". */
function finite(value: unknown, node: Expression): unknown {
  if (isDecimal(value) && !value.isFinite()) {
    throw new ExpressionError(`${quoted(node)} gives a number too large to print (beyond 10^${MAX_EXPONENT})`);
  }
  return value;
}

function bounded(text: string): string {
  if (text.length > MAX_TEXT_LENGTH)
    throw new ExpressionError(`An expression built a text of ${text.length} characters; at most ${MAX_TEXT_LENGTH} are allowed`);
  return text;
}

function equal(a: unknown, b: unknown): boolean {
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  const numeric = isDecimal(a) || typeof a === 'number' || isDecimal(b) || typeof b === 'number';
  if (numeric) {
    const x = toDecimal(a);
    const y = toDecimal(b);
    return x !== undefined && y !== undefined && x.equals(y);
  }
  return a === b;
}

function compare(left: unknown, right: unknown, node: Expression & { kind: 'binary' }): number {
  const x = toDecimal(left);
  const y = toDecimal(right);
  if (x && y) return x.comparedTo(y);
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  const culprit = x ? node.right : node.left;
  const value = x ? right : left;
  if (value === null || value === undefined) throw new ExpressionError(`${quoted(culprit)} has no value`);
  throw new ExpressionError(`${quoted(node.left)} (${shown(left)}) cannot be compared with ${quoted(node.right)} (${shown(right)})`);
}

function arithmetic(node: Expression & { kind: 'binary' }, left: unknown, right: unknown): unknown {
  if (node.operator === '+') {
    const x = toDecimal(left);
    const y = toDecimal(right);
    if (x && y) return x.plus(y);
    if (typeof left === 'string' || typeof right === 'string') {
      if (left === null || left === undefined) throw new ExpressionError(`${quoted(node.left)} has no value`);
      if (right === null || right === undefined) throw new ExpressionError(`${quoted(node.right)} has no value`);
      return bounded(plainText(left) + plainText(right));
    }
  }
  const x = numberOperand(left, node.left);
  const y = numberOperand(right, node.right);
  switch (node.operator) {
    case '+':
      return x.plus(y);
    case '-':
      return x.minus(y);
    case '*':
      return x.times(y);
    case '/':
    case '%':
      if (y.isZero()) throw new ExpressionError(`${quoted(node.right)} is zero: cannot divide by zero`);
      return node.operator === '/' ? x.dividedBy(y) : x.modulo(y);
    default:
      throw new ExpressionError(`Unknown operator ${node.operator}`);
  }
}

/** `client.note | default:"-"`: a member that is absent, or read from nothing, is the default's to replace. */
function evaluateOptional(node: Expression, scopes: readonly unknown[], context: EvaluationContext): unknown {
  if (node.kind !== 'member') return evaluate(node, scopes, context);
  const object = evaluateOptional(node.object, scopes, context);
  if (object === null || object === undefined) return undefined;
  if (isPlainObject(object) && !isForbiddenName(node.property) && !Object.hasOwn(object, node.property)) return undefined;
  return member(object, node.property, node);
}

/**
 * Evaluates a parsed, checked expression. `scopes` is innermost first (a loop's element,
 * then what encloses it); a name is the first scope's own field of that name, and only
 * own fields of plain data objects are ever read. Throws ExpressionError on bad input.
 */
export function evaluate(node: Expression, scopes: readonly unknown[], context: EvaluationContext): unknown {
  context.budget.tick();
  switch (node.kind) {
    case 'literal':
      return finite(node.value, node);
    case 'name': {
      if (node.name === '.') return scopes[0];
      for (const scope of scopes) if (isPlainObject(scope) && Object.hasOwn(scope, node.name)) return scope[node.name];
      return undefined;
    }
    case 'member':
      return member(evaluate(node.object, scopes, context), node.property, node);
    case 'index': {
      const object = evaluate(node.object, scopes, context);
      const index = evaluate(node.index, scopes, context);
      if (Array.isArray(object)) {
        const position = toDecimal(index);
        if (!position || !position.isInteger() || position.isNeg() || position.gte(object.length)) {
          throw new ExpressionError(`${quoted(node)} is missing: ${quoted(node.object)} has ${object.length} items`);
        }
        return object[position.toNumber()];
      }
      if (typeof index === 'string') return member(object, index, node);
      throw new ExpressionError(`${quoted(node)} cannot be read with ${shown(index)}`);
    }
    case 'unary': {
      const operand = evaluate(node.operand, scopes, context);
      if (node.operator === '!') return !truthy(operand);
      const number = numberOperand(operand, node.operand);
      return finite(node.operator === '-' ? number.negated() : number, node.operand);
    }
    case 'binary': {
      const left = evaluate(node.left, scopes, context);
      const right = evaluate(node.right, scopes, context);
      switch (node.operator) {
        case '==':
          return equal(left, right);
        case '!=':
          return !equal(left, right);
        case '<':
          return compare(left, right, node) < 0;
        case '<=':
          return compare(left, right, node) <= 0;
        case '>':
          return compare(left, right, node) > 0;
        case '>=':
          return compare(left, right, node) >= 0;
        default:
          return finite(arithmetic(node, left, right), node);
      }
    }
    case 'logical': {
      const left = evaluate(node.left, scopes, context);
      if (node.operator === '&&' ? !truthy(left) : truthy(left)) return left;
      return evaluate(node.right, scopes, context);
    }
    case 'conditional':
      return evaluate(truthy(evaluate(node.test, scopes, context)) ? node.consequent : node.alternate, scopes, context);
    case 'filter': {
      const spec = filterSpec(node.name);
      if (!spec) throw new ExpressionError(`"${node.name}" is not a filter`);
      const input = spec.kind === 'default' ? evaluateOptional(node.input, scopes, context) : evaluate(node.input, scopes, context);
      const args = node.args.map((arg) => evaluate(arg, scopes, context)) as FilterArgument[];
      const each = node.each;
      return finite(
        spec.apply(input, args, {
          locale: context.locale,
          subject: quoted(node.input),
          ...(each ? { each: (element: unknown) => evaluate(each, [element, ...scopes], context) } : {}),
        }),
        node,
      );
    }
  }
}

/**
 * The text a tag prints for a value: numbers in the locale (all their decimals), text as
 * is. Nothing, a list or an object is refused rather than printed as "undefined".
 */
export function valueToText(value: unknown, locale: string, subject: string): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (isDecimal(value) || typeof value === 'number') {
    const number = toDecimal(value);
    if (!number || !number.isFinite()) throw new ExpressionError(`${subject} gives a number too large to print`);
    return formatDecimal(number, locale, { maximumFractionDigits: 20 });
  }
  if (value instanceof BarcodeRequest) throw new ExpressionError(`${subject} makes an image: write the tag as {%…}`);
  if (Array.isArray(value)) throw new ExpressionError(`${subject} is a list; print one of its fields inside a loop, or use | count or | sum:"field"`);
  throw new ExpressionError(`${subject} is an object; print one of its fields, e.g. {${subject.replace(/"/g, '')}.name}`);
}
