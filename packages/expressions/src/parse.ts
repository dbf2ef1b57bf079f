import type { BinaryOperator, Expression, ExpressionIssue } from './ast';
import { Decimal } from './decimal';

/** Longest expression accepted (API §11). */
export const MAX_EXPRESSION_LENGTH = 500;
/** Deepest nesting of parentheses and operators: far past any real template, far below the stack. */
export const MAX_NESTING = 64;

/** Names that would reach into JavaScript's machinery rather than the data, however written. */
const FORBIDDEN_NAMES = new Set(['constructor', '__proto__', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__']);
export const isForbiddenName = (name: string) => FORBIDDEN_NAMES.has(name);

type Token =
  | { type: 'number'; text: string; at: number }
  | { type: 'string'; value: string; at: number }
  | { type: 'name'; value: string; at: number }
  | { type: 'op'; value: string; at: number }
  | { type: 'end'; at: number };

class SyntaxProblem extends Error {
  constructor(
    readonly at: number,
    message: string,
  ) {
    super(message);
  }
}

const IDENTIFIER_START = /[\p{L}_$]/u;
const IDENTIFIER_PART = /[\p{L}\p{N}_$]/u;
const OPERATORS = ['===', '!==', '==', '!=', '<=', '>=', '&&', '||', '+', '-', '*', '/', '%', '<', '>', '!', '?', ':', '(', ')', '[', ']', '.', ',', '|', '='];
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', "'": "'", '\\': '\\', '/': '/' };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    const at = i;
    if (/[0-9]/.test(char) || (char === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const match = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(text.slice(i))!;
      tokens.push({ type: 'number', text: match[0], at });
      i += match[0].length;
      if (IDENTIFIER_PART.test(text[i] ?? '')) throw new SyntaxProblem(i, `"${text.slice(at, i + 1)}" is not a number`);
      continue;
    }
    if (char === '"' || char === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new SyntaxProblem(at, `The text starting with ${char} is never closed; end it with ${char}`);
        const c = text[i]!;
        if (c === char) break;
        if (c === '\\') {
          const next = text[i + 1] ?? '';
          if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            value += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
            i += 6;
            continue;
          }
          if (!(next in ESCAPES)) throw new SyntaxProblem(i, `"\\${next}" is not an escape this language knows`);
          value += ESCAPES[next];
          i += 2;
          continue;
        }
        value += c;
        i++;
      }
      i++;
      tokens.push({ type: 'string', value, at });
      continue;
    }
    if (IDENTIFIER_START.test(char)) {
      let end = i + 1;
      while (end < text.length && IDENTIFIER_PART.test(text[end]!)) end++;
      tokens.push({ type: 'name', value: text.slice(i, end), at });
      i = end;
      continue;
    }
    const operator = OPERATORS.find((op) => text.startsWith(op, i));
    if (!operator) throw new SyntaxProblem(at, `"${char}" cannot be used in an expression`);
    tokens.push({ type: 'op', value: operator, at });
    i += operator.length;
  }
  tokens.push({ type: 'end', at: text.length });
  return tokens;
}

const describe = (token: Token) =>
  token.type === 'end'
    ? 'the end of the expression'
    : token.type === 'string'
      ? `the text "${token.value}"`
      : `"${token.type === 'number' ? token.text : token.value}"`;

class Parser {
  private position = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): Expression {
    const expression = this.pipeline();
    const rest = this.peek();
    if (rest.type !== 'end') {
      if (rest.type === 'op' && rest.value === '(')
        throw new SyntaxProblem(rest.at, 'Function calls are not allowed in expressions; use a filter, e.g. {name | upper}');
      if (expression.kind === 'filter' && rest.type === 'op') {
        throw new SyntaxProblem(
          rest.at,
          `A filter applies to everything before it; to compute with a filtered value put it in parentheses, e.g. (items | sum:"price") ${rest.value} …`,
        );
      }
      throw new SyntaxProblem(rest.at, `Unexpected ${describe(rest)}; an operator such as + or == was expected`);
    }
    return expression;
  }

  private peek(): Token {
    return this.tokens[this.position]!;
  }

  private next(): Token {
    return this.tokens[this.position++]!;
  }

  private isOp(...values: string[]): boolean {
    const token = this.peek();
    return token.type === 'op' && values.includes(token.value);
  }

  private expect(value: string, why: string): void {
    if (!this.isOp(value)) throw new SyntaxProblem(this.peek().at, `${why}; found ${describe(this.peek())}`);
    this.position++;
  }

  private nested<T>(at: number, parse: () => T): T {
    if (++this.depth > MAX_NESTING) throw new SyntaxProblem(at, `The expression is nested more than ${MAX_NESTING} levels deep`);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private pipeline(): Expression {
    let input = this.conditional();
    while (this.isOp('|')) {
      this.next();
      const name = this.next();
      if (name.type !== 'name') throw new SyntaxProblem(name.at, `A filter name is expected after "|"; found ${describe(name)}`);
      const args: Expression[] = [];
      while (this.isOp(':')) {
        this.next();
        // Arguments are single values (literals, checked later): `sum:"x" > 5` must not take `> 5`.
        args.push(this.nested(this.peek().at, () => this.unary()));
      }
      input = { kind: 'filter', at: name.at, name: name.value, input, args };
    }
    return input;
  }

  private conditional(): Expression {
    const at = this.peek().at;
    return this.nested(at, () => {
      const test = this.binary(0);
      if (!this.isOp('?')) return test;
      this.next();
      const consequent = this.conditional();
      this.expect(':', 'A conditional value needs ":" between its two values (condition ? yes : no)');
      const alternate = this.conditional();
      return { kind: 'conditional', at, test, consequent, alternate };
    });
  }

  private static readonly LEVELS: string[][] = [['||'], ['&&'], ['==', '!=', '===', '!=='], ['<', '<=', '>', '>='], ['+', '-'], ['*', '/', '%']];

  private binary(level: number): Expression {
    if (level === Parser.LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    while (this.isOp(...Parser.LEVELS[level]!)) {
      const token = this.next() as { value: string; at: number };
      const right = this.nested(token.at, () => this.binary(level + 1));
      const operator = token.value === '===' ? '==' : token.value === '!==' ? '!=' : token.value;
      left =
        operator === '&&' || operator === '||'
          ? { kind: 'logical', at: left.at, operator, left, right }
          : { kind: 'binary', at: left.at, operator: operator as BinaryOperator, left, right };
    }
    if (this.isOp('=')) throw new SyntaxProblem(this.peek().at, '"=" cannot be used in an expression; compare with ==');
    return left;
  }

  private unary(): Expression {
    const token = this.peek();
    if (token.type === 'op' && (token.value === '!' || token.value === '-' || token.value === '+')) {
      this.next();
      const operand = this.nested(token.at, () => this.unary());
      return { kind: 'unary', at: token.at, operator: token.value, operand };
    }
    return this.postfix();
  }

  private postfix(): Expression {
    let object = this.primary();
    for (;;) {
      if (this.isOp('.')) {
        this.next();
        const name = this.next();
        if (name.type !== 'name') throw new SyntaxProblem(name.at, `A field name is expected after "."; found ${describe(name)}`);
        object = { kind: 'member', at: object.at, object, property: checkedName(name.value, name.at) };
      } else if (this.isOp('[')) {
        const open = this.next();
        const index = this.nested(open.at, () => this.pipeline());
        this.expect(']', 'A "[" needs its "]"');
        object =
          index.kind === 'literal' && typeof index.value === 'string'
            ? { kind: 'member', at: object.at, object, property: checkedName(index.value, index.at) }
            : { kind: 'index', at: object.at, object, index };
      } else if (this.isOp('(')) {
        throw new SyntaxProblem(this.peek().at, 'Function calls are not allowed in expressions; use a filter, e.g. {name | upper}');
      } else return object;
    }
  }

  private primary(): Expression {
    const token = this.next();
    switch (token.type) {
      case 'number':
        return { kind: 'literal', at: token.at, value: new Decimal(token.text) };
      case 'string':
        return { kind: 'literal', at: token.at, value: token.value };
      case 'name':
        if (token.value === 'true' || token.value === 'false') return { kind: 'literal', at: token.at, value: token.value === 'true' };
        if (token.value === 'null') return { kind: 'literal', at: token.at, value: null };
        return { kind: 'name', at: token.at, name: checkedName(token.value, token.at) };
      case 'op':
        if (token.value === '(') {
          const inner = this.nested(token.at, () => this.pipeline());
          this.expect(')', 'A "(" needs its ")"');
          return inner;
        }
        throw new SyntaxProblem(token.at, `Unexpected ${describe(token)}; a value or a name was expected`);
      case 'end':
        throw new SyntaxProblem(token.at, 'The expression ends too early; a value or a name was expected');
    }
  }
}

function checkedName(name: string, at: number): string {
  if (isForbiddenName(name)) throw new SyntaxProblem(at, `"${name}" cannot be used in an expression`);
  return name;
}

export type ParseResult = { ok: true; ast: Expression } | { ok: false; errors: ExpressionIssue[] };

/**
 * Parses one expression of the template language (API §11). Never evaluates anything; a
 * problem is returned with its offset, not thrown. `{.}` (the current list element) is the
 * name ".".
 */
export function parseExpression(text: string): ParseResult {
  if (text.length > MAX_EXPRESSION_LENGTH) {
    return {
      ok: false,
      errors: [{ at: MAX_EXPRESSION_LENGTH, message: `The expression is ${text.length} characters long; at most ${MAX_EXPRESSION_LENGTH} are allowed` }],
    };
  }
  // Word's autocorrect turns typed quotes into curly ones: `default:“n/a”` means `default:"n/a"`.
  text = text.replace(/[\u201c\u201d\u201e]/g, '"').replace(/[\u2018\u2019]/g, "'");
  if (text.trim() === '.') return { ok: true, ast: { kind: 'name', at: text.indexOf('.'), name: '.' } };
  try {
    return { ok: true, ast: new Parser(tokenize(text)).parse() };
  } catch (error) {
    if (error instanceof SyntaxProblem) return { ok: false, errors: [{ at: error.at, message: error.message }] };
    throw error;
  }
}

/** The names of a dotted path when the expression is nothing else (`client.name` → ["client", "name"]). */
export function plainPath(ast: Expression): string[] | undefined {
  if (ast.kind === 'name') return [ast.name];
  if (ast.kind === 'member') {
    const inner = plainPath(ast.object);
    return inner && [...inner, ast.property];
  }
  return undefined;
}
