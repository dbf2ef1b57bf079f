import PizZip from 'pizzip';
import { buildDocx, paragraph, solidPng, table } from '@docgen/testing';
import { fillHtml, prepareHtmlTemplate } from '../html/html-template';
import { prepareDocxTemplate } from '../prepare-docx-template';
import { OutputTooLargeError } from './estimate-output';
import { renderDocx } from './render-docx';

const MiB = 1024 * 1024;
/** A table row of about 10 KB (5 KB of XML) around a loop, as in the loop bomb seen against npm start. */
const bigRow = (loop: string) => table([[`{#${loop}}{a}${'padding text '.repeat(200)}`, `${'more padding '.repeat(200)}{/${loop}}`]]);

function prepare(body: string) {
  return prepareDocxTemplate(buildDocx({ body }));
}

function timed<T>(run: () => T): { result?: T; error?: Error; ms: number } {
  const started = performance.now();
  try {
    return { result: run(), ms: performance.now() - started };
  } catch (error) {
    return { error: error as Error, ms: performance.now() - started };
  }
}

describe('output size limit (MAX_OUTPUT_BYTES)', () => {
  it('refuses the loop bomb (100,000 items, ~900 KB of JSON, over a 10 KB row) before filling, in a moment, not gigabytes later', () => {
    const { file, variables } = prepare(bigRow('items'));
    const input = { items: Array.from({ length: 100_000 }, () => ({ a: '' })) };
    const { error, ms } = timed(() => renderDocx(file, variables, input, new Map(), { maxOutputBytes: 50 * MiB }));
    expect(error).toBeInstanceOf(OutputTooLargeError);
    expect(error!.message).toBe(
      'The filled document would be larger than the output limit of 50 MiB (MAX_OUTPUT_BYTES); use fewer list items or shorter values',
    );
    expect(ms).toBeLessThan(3_000);
  });

  it('refuses nested loops over the same list (items x items x items) without walking them all', () => {
    const { file, variables } = prepare(paragraph('{#a}{#a}{#a}{#a}x{/a}{/a}{/a}{/a}'));
    const input = { a: Array.from({ length: 200 }, () => ({})) };
    const { error, ms } = timed(() => renderDocx(file, variables, input, new Map(), { maxOutputBytes: 50 * MiB }));
    expect(error).toBeInstanceOf(OutputTooLargeError);
    expect(ms).toBeLessThan(2_000);
  });

  it('counts a section on a member path as often as the fill repeats it ({#d.a} nested, 1,000 items of 3 KB of JSON)', () => {
    const { file, variables } = prepare(paragraph(`{#d.a}{#d.a}${'static text '.repeat(40)}{/d.a}{/d.a}`));
    const input = { d: { a: Array.from({ length: 1_000 }, () => ({})) } };
    const { error, ms } = timed(() => renderDocx(file, variables, input, new Map(), { maxOutputBytes: 50 * MiB }));
    expect(error).toBeInstanceOf(OutputTooLargeError);
    expect(ms).toBeLessThan(2_000);
  });

  it('counts a value read through a member path in every item that prints it', () => {
    const { file, variables } = prepare(paragraph('{#d.a}{#d.a}{d.s}{/d.a}{/d.a}'));
    const input = { d: { s: 'x'.repeat(MiB), a: Array.from({ length: 10 }, () => ({})) } };
    const { error, ms } = timed(() => renderDocx(file, variables, input, new Map(), { maxOutputBytes: 50 * MiB }));
    expect(error).toBeInstanceOf(OutputTooLargeError);
    expect(ms).toBeLessThan(2_000);
  });

  it('counts a computed section by its value: a false condition adds nothing, a list repeats', () => {
    const { file, variables } = prepare(paragraph(`{#total > 1000}${'x'.repeat(5_000)}{/}`) + paragraph(`{#d.a}${'y'.repeat(1_000)}{/d.a}`));
    const input = { total: 5, d: { a: [{}, {}] } };
    expect(() => renderDocx(file, variables, input, new Map(), { maxOutputBytes: 4_500 })).not.toThrow();
    expect(() => renderDocx(file, variables, { ...input, total: 5_000 }, new Map(), { maxOutputBytes: 4_500 })).toThrow(OutputTooLargeError);
    expect(() => renderDocx(file, variables, { total: 5, d: { a: [{}, {}, {}, {}, {}] } }, new Map(), { maxOutputBytes: 4_500 })).toThrow(OutputTooLargeError);
  });

  it('enters a section as docxtemplater does: a number shows once in its scope, true is true, a null in an item reads the name outside', () => {
    const KiB = 1024;
    const limit = { maxOutputBytes: 100 * KiB };
    const rows = Array.from({ length: 200 }, () => ({ x: 'a' }));
    // A count is a number (a Decimal object): its section keeps the scope it is in, where d is the list.
    const onNumber = prepare(paragraph(`{#d | count}{#d}{x}${'n'.repeat(1_000)}{/d}{/}`));
    expect(() => renderDocx(onNumber.file, onNumber.variables, { d: rows }, new Map(), limit)).toThrow(OutputTooLargeError);
    const onTrue = prepare(paragraph(`{#d}{x}{#true}${'t'.repeat(1_000)}{/}{/d}`));
    expect(() => renderDocx(onTrue.file, onTrue.variables, { d: rows }, new Map(), limit)).toThrow(OutputTooLargeError);
    // title is null in every item, so each prints the title outside: 200 × 10 KB.
    const throughNull = prepare(paragraph('{#o.a}{title}{/o.a}'));
    const input = { title: 'T'.repeat(10 * KiB), o: { a: Array.from({ length: 200 }, () => ({ title: null })) } };
    expect(() => renderDocx(throughNull.file, throughNull.variables, input, new Map(), { maxOutputBytes: MiB })).toThrow(OutputTooLargeError);
    // Each fill passes when its limit leaves room for what it really writes.
    expect(() => renderDocx(onNumber.file, onNumber.variables, { d: rows }, new Map(), { maxOutputBytes: 2 * MiB })).not.toThrow();
    expect(() => renderDocx(throughNull.file, throughNull.variables, input, new Map(), { maxOutputBytes: 4 * MiB })).not.toThrow();
  });

  it('says what the fill would say about a tag, with the estimate on or off', () => {
    const { file, variables } = prepare(paragraph('{#total > 1}{a / b}{/}'));
    const input = { total: 5, a: 1, b: 0 };
    const message = (options: { maxOutputBytes?: number }) => {
      try {
        renderDocx(file, variables, input, new Map(), options);
        return 'filled';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(message({ maxOutputBytes: 50 * MiB })).toBe(message({}));
    expect(message({})).toMatch(/^Tag "\{a \/ b\}" in item 1 of "total > 1": /);
  });

  it('counts long values and images, and lets a fill under the limit through with an estimate close to its real size', () => {
    const { file, variables } = prepare(paragraph('{title}') + table([['{#rows}{name}', '{qty}{/rows}']]) + paragraph('{%logo}'));
    const logo = solidPng(400, 300, [10, 20, 30]);
    const images = new Map([['https://example.test/logo.png', { data: logo, extension: 'png' as const, width: 400, height: 300 }]]);
    const input = {
      title: 'T'.repeat(100_000),
      rows: Array.from({ length: 2_000 }, (_, i) => ({ name: `row ${i}`, qty: String(i) })),
      logo: 'https://example.test/logo.png',
    };
    const docx = renderDocx(file, variables, input, images, { compress: false, maxOutputBytes: 50 * MiB });
    const zip = new PizZip(docx);
    const real = zip.file('word/document.xml')!.asText().length + logo.length;
    // The same fill with a limit just below its size is refused.
    expect(() => renderDocx(file, variables, input, images, { maxOutputBytes: Math.floor(real * 0.8) })).toThrow(OutputTooLargeError);
    expect(() => renderDocx(file, variables, input, images, { maxOutputBytes: Math.ceil(real * 1.3) })).not.toThrow();
  });

  it('counts a QR code at every placement, DOCX and HTML: one code repeated down a list is refused before the fill, not found in memory after it', () => {
    const url = `https://example.test/pay?ref=${'x'.repeat(1_000)}`;
    const items = Array.from({ length: 300 }, () => ({ url }));
    const docx = prepare(table([['{#items}{%url | qrcode}{/items}']]));
    const docxError = timed(() => renderDocx(docx.file, docx.variables, { items }, new Map(), { maxOutputBytes: 5 * MiB })).error;
    expect(docxError).toBeInstanceOf(OutputTooLargeError);
    const html = prepareHtmlTemplate(Buffer.from('<table>{#items}<tr><td>{%url | qrcode}</td></tr>{/items}</table>'));
    const htmlError = timed(() => fillHtml(html.html, html.variables, { items }, new Map(), { maxOutputBytes: 5 * MiB })).error;
    expect(htmlError).toBeInstanceOf(OutputTooLargeError);
    // Under the limit the same code in a few rows fills, drawn once.
    expect(() => renderDocx(docx.file, docx.variables, { items: items.slice(0, 3) }, new Map(), { maxOutputBytes: 5 * MiB })).not.toThrow();
  });

  it('a fill just under the default limit stays far inside the job lock on the event loop (measured)', () => {
    const { file, variables } = prepare(bigRow('items'));
    // ~8,500 rows of ~5.3 KB of XML: about 43 MiB of document.xml.
    const input = { items: Array.from({ length: 8_500 }, () => ({ a: '' })) };
    const { result, error, ms } = timed(() => renderDocx(file, variables, input, new Map(), { compress: false, maxOutputBytes: 50 * MiB }));
    expect(error).toBeUndefined();
    expect(result!.length).toBeGreaterThan(40 * MiB);
    process.stdout.write(`fill of ${(result!.length / MiB).toFixed(1)} MiB took ${Math.round(ms)} ms\n`);
    expect(ms).toBeLessThan(15_000); // RENDER_LOCK_MS default 30 s
  });
});
