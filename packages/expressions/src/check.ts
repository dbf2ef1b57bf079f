import type { Expression, ExpressionIssue } from './ast';
import { filterNames, filterSpec, type FilterArgument } from './filters';
import { parseExpression } from './parse';

export interface CheckOptions {
  /** The tag makes an image (`{%…}`): it may end with `| qrcode` or `| barcode:"…"`. */
  image?: boolean;
}

function literalArgument(node: Expression): FilterArgument | undefined {
  if (node.kind === 'literal') return node.value;
  if (node.kind === 'unary' && node.operator === '-' && node.operand.kind === 'literal' && typeof node.operand.value === 'object' && node.operand.value) {
    return node.operand.value.negated();
  }
  return undefined;
}

/**
 * Checks every filter of a parsed expression (known name, argument count and kinds, image
 * filters only last in an image tag) and parses aggregates' per-element expressions into
 * `each`. Returns every problem, with offsets into the tag's expression.
 */
export function checkExpression(ast: Expression, options: CheckOptions = {}): ExpressionIssue[] {
  const issues: ExpressionIssue[] = [];
  const visit = (node: Expression, isOutermost: boolean): void => {
    switch (node.kind) {
      case 'literal':
      case 'name':
        return;
      case 'member':
        return visit(node.object, false);
      case 'index':
        visit(node.object, false);
        return visit(node.index, false);
      case 'unary':
        return visit(node.operand, false);
      case 'binary':
      case 'logical':
        visit(node.left, false);
        return visit(node.right, false);
      case 'conditional':
        visit(node.test, false);
        visit(node.consequent, false);
        return visit(node.alternate, false);
      case 'filter': {
        visit(node.input, false);
        node.args.forEach((arg) => visit(arg, false));
        const spec = filterSpec(node.name);
        if (!spec) {
          issues.push({ at: node.at, message: `"${node.name}" is not a filter; the filters are ${filterNames.join(', ')}` });
          return;
        }
        const args = node.args.map(literalArgument);
        if (args.some((arg) => arg === undefined)) {
          issues.push({ at: node.at, message: `The arguments of "${node.name}" must be written out (a number or a text in quotes), not computed` });
          return;
        }
        if (args.length < spec.minArgs || args.length > spec.maxArgs) {
          const range = spec.minArgs === spec.maxArgs ? `${spec.minArgs}` : `${spec.minArgs} to ${spec.maxArgs}`;
          issues.push({
            at: node.at,
            message: `"${node.name}" takes ${range} argument${spec.maxArgs === 1 && spec.minArgs === 1 ? '' : 's'}, not ${args.length}`,
          });
          return;
        }
        const problem = spec.checkArgs?.(args as FilterArgument[]);
        if (problem) issues.push({ at: node.at, message: `"${node.name}": ${problem}` });
        if (spec.kind === 'image' && !(options.image && isOutermost)) {
          issues.push({ at: node.at, message: `"${node.name}" makes an image: use it last in an image tag, e.g. {%payment_url | qrcode}` });
        }
        if (spec.kind === 'aggregate' && typeof args[0] === 'string') {
          const each = parseExpression(args[0]);
          if (!each.ok) {
            issues.push(...each.errors.map((issue) => ({ at: node.at, message: `In "${node.name}:${JSON.stringify(args[0])}": ${issue.message}` })));
            return;
          }
          const inner = checkExpression(each.ast);
          issues.push(...inner.map((issue) => ({ at: node.at, message: `In "${node.name}:${JSON.stringify(args[0])}": ${issue.message}` })));
          node.each = each.ast;
        }
        return;
      }
    }
  };
  visit(ast, true);
  if (options.image && !(ast.kind === 'filter' && filterSpec(ast.name)?.kind === 'image') && ast.kind !== 'name' && ast.kind !== 'member') {
    issues.push({ at: 0, message: 'An image tag holds a name, or a value followed by | qrcode or | barcode:"…"' });
  }
  return issues;
}
