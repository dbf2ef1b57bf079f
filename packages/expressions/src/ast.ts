import type { Decimal } from './decimal';

/** Every node records where it starts in the expression, for messages. */
interface Located {
  at: number;
}

export type Expression =
  | (Located & { kind: 'literal'; value: string | boolean | null | Decimal })
  | (Located & { kind: 'name'; name: string })
  | (Located & { kind: 'member'; object: Expression; property: string })
  | (Located & { kind: 'index'; object: Expression; index: Expression })
  | (Located & { kind: 'unary'; operator: '!' | '-' | '+'; operand: Expression })
  | (Located & { kind: 'binary'; operator: BinaryOperator; left: Expression; right: Expression })
  | (Located & { kind: 'logical'; operator: '&&' | '||'; left: Expression; right: Expression })
  | (Located & { kind: 'conditional'; test: Expression; consequent: Expression; alternate: Expression })
  | (Located & {
      kind: 'filter';
      name: string;
      input: Expression;
      args: Expression[];
      /** Aggregates: the per-element expression, parsed from the string argument. */ each?: Expression;
    });

export type BinaryOperator = '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=';

/** A problem with an expression, with the character offset it starts at. */
export interface ExpressionIssue {
  at: number;
  message: string;
}
