import type { Expression } from './ast';
import { filterSpec } from './filters';
import { plainPath } from './parse';

export type InferredType = 'text' | 'number' | 'date' | 'boolean' | 'list' | 'image';

/** One name an expression reads, with the type its use implies. */
export interface VariableUse {
  /** The name and the fields read from it: `client.address.city` → ["client", "address", "city"]. */
  path: string[];
  type: InferredType;
  /** `| default:"…"` makes the value optional. */
  optional?: boolean;
  /** Lists: what the per-element expressions of aggregates read from each element. */
  fields?: VariableUse[];
}

const NUMBER_FILTERS = new Set(['number', 'currency', 'percent']);

/** What kind of value a node surely gives, when that can be told without input. */
function kindOf(node: Expression): 'number' | 'text' | 'boolean' | undefined {
  switch (node.kind) {
    case 'literal':
      if (typeof node.value === 'string') return 'text';
      if (typeof node.value === 'boolean') return 'boolean';
      return node.value === null ? undefined : 'number';
    case 'unary':
      return node.operator === '!' ? 'boolean' : 'number';
    case 'binary':
      if (['-', '*', '/', '%'].includes(node.operator)) return 'number';
      if (node.operator === '+') {
        const sides = [kindOf(node.left), kindOf(node.right)];
        if (sides.includes('text')) return 'text';
        return sides.includes('number') ? 'number' : undefined;
      }
      return 'boolean';
    case 'filter': {
      const spec = filterSpec(node.name);
      if (spec?.kind === 'aggregate') return 'number';
      return spec?.kind === 'text' || NUMBER_FILTERS.has(node.name) || spec?.kind === 'date' ? 'text' : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The names an expression reads, each with the type its use implies: arithmetic → number,
 * `| date` → date, `!x` and `&&` operands → boolean, aggregates → list (with the fields
 * their per-element expression reads), `| qrcode` input → text, otherwise text.
 */
export function inferVariables(ast: Expression): VariableUse[] {
  const uses: VariableUse[] = [];
  const visit = (node: Expression, expected: InferredType | undefined, into: VariableUse[], optional = false): void => {
    const path = plainPath(node);
    if (path) {
      if (path[0] === '.') return;
      if (path[path.length - 1] === 'length' && path.length > 1) {
        into.push({ path: path.slice(0, -1), type: 'list' });
        return;
      }
      into.push({ path, type: expected ?? 'text', ...(optional ? { optional } : {}) });
      return;
    }
    switch (node.kind) {
      case 'literal':
      case 'name':
        return;
      case 'member':
        return visit(node.object, undefined, into);
      case 'index':
        visit(node.object, 'list', into);
        return visit(node.index, undefined, into);
      case 'unary':
        return visit(node.operand, node.operator === '!' ? 'boolean' : 'number', into);
      case 'logical':
        visit(node.left, node.operator === '&&' ? 'boolean' : expected, into);
        return visit(node.right, node.operator === '&&' ? 'boolean' : expected, into);
      case 'conditional':
        visit(node.test, 'boolean', into);
        visit(node.consequent, expected, into);
        return visit(node.alternate, expected, into);
      case 'binary': {
        const { operator, left, right } = node;
        let side: InferredType | undefined;
        if (['-', '*', '/', '%'].includes(operator)) side = 'number';
        else {
          const kinds = [kindOf(left), kindOf(right)];
          if (operator === '+') side = kinds.includes('text') ? 'text' : kinds.includes('number') ? 'number' : 'text';
          else side = kinds.includes('number') ? 'number' : kinds.includes('boolean') && (operator === '==' || operator === '!=') ? 'boolean' : 'text';
        }
        visit(left, side, into);
        return visit(right, side, into);
      }
      case 'filter': {
        const spec = filterSpec(node.name);
        node.args.forEach((arg) => visit(arg, undefined, into));
        switch (spec?.kind) {
          case 'aggregate': {
            const fields: VariableUse[] = [];
            if (node.each) visit(node.each, 'number', fields);
            const listPath = plainPath(node.input);
            if (listPath && listPath[0] !== '.') into.push({ path: listPath, type: 'list', fields });
            else visit(node.input, 'list', into);
            return;
          }
          case 'number':
            return visit(node.input, 'number', into, optional);
          case 'date':
            return visit(node.input, 'date', into, optional);
          case 'default':
            return visit(node.input, expected, into, true);
          case 'image':
            return visit(node.input, 'text', into, optional);
          default:
            return visit(node.input, undefined, into, optional);
        }
      }
    }
  };
  visit(ast, undefined, uses);
  return uses;
}
