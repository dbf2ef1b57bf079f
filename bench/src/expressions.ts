import { compileExpression, evaluate, EvaluationBudget, valueToText } from '@docgen/expressions';
import { prepareDocxTemplate, renderDocx, storedDocxPackage, type TemplateVariable } from '@docgen/templating';
import { buildDocx, paragraph, table } from '@docgen/testing';
import { runWhenMain, publish, type BenchOptions } from './report';
import { fixed, markdownTable, pairedCpuMs, ratio } from './stats';

const lines = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ description: `Item ${i}`, price: ((i % 1000) / 100 + 0.99).toFixed(2), quantity: (i % 7) + 1 }));

/** The invoice with every value computed by the caller: plain tags only (the baseline). */
function precomputed(rows: number) {
  const template = buildDocx({
    body:
      paragraph('Invoice for {client_name}') +
      table([['{#items}{description}', '{quantity}', '{price}', '{line_total}{/items}']]) +
      paragraph('Subtotal {subtotal} VAT {vat} Total {total}') +
      paragraph('{#late}Late payments carry interest.{/late}'),
  });
  const items = lines(rows);
  const subtotal = items.reduce((sum, item) => sum + Number(item.price) * item.quantity, 0);
  const input = {
    client_name: 'Ada Lovelace',
    items: items.map((item) => ({ ...item, line_total: `€${(Number(item.price) * item.quantity).toFixed(2)}` })),
    subtotal: `€${subtotal.toFixed(2)}`,
    vat: `€${(subtotal * 0.2).toFixed(2)}`,
    total: `€${(subtotal * 1.2).toFixed(2)}`,
    late: subtotal * 1.2 > 1000,
  };
  return { template, input };
}

/** The same invoice computed by the template (API §11). */
function computed(rows: number) {
  const template = buildDocx({
    body:
      paragraph('Invoice for {client_name | upper}') +
      table([['{#items}{description}', '{quantity}', '{price | currency:"EUR"}', '{price * quantity | currency:"EUR"}{/items}']]) +
      paragraph(
        'Subtotal {items | sum:"price * quantity" | currency:"EUR"} VAT {(items | sum:"price * quantity") * vat_rate | currency:"EUR"} Total {(items | sum:"price * quantity") * (1 + vat_rate) | currency:"EUR"}',
      ) +
      paragraph('{#(items | sum:"price * quantity") * (1 + vat_rate) > 1000}Late payments carry interest.{/}'),
  });
  return { template, input: { client_name: 'Ada Lovelace', items: lines(rows), vat_rate: '0.2' } };
}

/**
 * What computing in the template costs: CPU per fill of an invoice whose line totals, sums
 * and condition are expressions, against the same invoice with those values computed by
 * the caller (plain tags); and one `sum:"price * quantity"` over 10,000 rows in decimal
 * arithmetic against a plain floating-point reduce (which is not exact to the cent).
 */
export async function runExpressionsBench(options: BenchOptions) {
  const blocks = options.smoke ? 2 : 9;
  const perBlock = options.smoke ? 2 : 60;
  const rows: (string | number)[][] = [];
  const results: Record<string, { baseline: number; measured: number }> = {};
  for (const count of options.smoke ? [20] : [20, 1000]) {
    const fills = [precomputed(count), computed(count)].map(({ template, input }) => {
      const prepared = prepareDocxTemplate(template);
      const file = storedDocxPackage(prepared.file);
      const variables = prepared.variables as TemplateVariable[];
      // As the render worker fills: with the output estimate at MAX_OUTPUT_BYTES's default (it reads computed tags through the parser too).
      return () => void renderDocx(file, variables, input, new Map(), { compress: false, expressionTimeoutMs: 60_000, maxOutputBytes: 50 * 1024 * 1024 });
    });
    const result = pairedCpuMs(blocks, perBlock, fills[0]!, fills[1]!);
    results[`invoice@${count}`] = result;
    rows.push([`fill of an invoice, ${count} rows`, fixed(result.baseline, 2), fixed(result.measured, 2), ratio(result.measured, result.baseline)]);
    options.log(`invoice ${count} rows: ${fixed(result.baseline, 2)} → ${fixed(result.measured, 2)} ms`);
  }

  const items = lines(10_000);
  const ast = compileExpression('items | sum:"price * quantity" | currency:"EUR"');
  if (!ast.ok) throw new Error('the benchmark expression does not compile');
  const decimalSum = () => void valueToText(evaluate(ast.ast, [{ items }], { locale: 'en-US', budget: new EvaluationBudget(60_000) }), 'en-US', 'sum');
  const floatSum = () => void `€${items.reduce((sum, item) => sum + Number(item.price) * item.quantity, 0).toFixed(2)}`;
  const sumRuns = options.smoke ? 1 : 20;
  results['sum@10000'] = pairedCpuMs(blocks, sumRuns, floatSum, decimalSum);
  rows.push([
    'sum:"price * quantity" over 10,000 rows',
    fixed(results['sum@10000'].baseline, 2),
    fixed(results['sum@10000'].measured, 2),
    ratio(results['sum@10000'].measured, results['sum@10000'].baseline),
  ]);

  const body = [
    'CPU milliseconds. Fill: renderDocx of an invoice (stored template, PDF output) whose line',
    'totals, subtotal, VAT, total and late-payment condition are expressions, against the same',
    'invoice with those values computed by the caller and sent for plain tags. Sum: one',
    '`items | sum:"price * quantity" | currency:"EUR"` in decimal arithmetic, against a',
    'floating-point reduce and `toFixed(2)` (the baseline is not exact to the cent).',
    `${blocks} rotating blocks; the median block.`,
    '',
    markdownTable(['case', 'computed by the caller ms', 'computed by the template ms', 'ratio'], rows),
  ].join('\n');
  publish(options, 'expressions', 'Expressions: what computing in the template costs', body);
  return results;
}

runWhenMain(module, runExpressionsBench);
