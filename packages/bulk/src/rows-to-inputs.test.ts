import ExcelJS from 'exceljs';
import type { TemplateVariable } from '@docgen/templating';
import { BulkInputError } from './bulk-input-error';
import { MAX_BULK_INPUT_BYTES } from './limits';
import { readSpreadsheet } from './read-spreadsheet';
import { rowsToInputs } from './rows-to-inputs';

const MiB = 1024 * 1024;

const variables = [
  { name: 'client_name', type: 'text', required: true },
  { name: 'items', type: 'list', required: false, fields: ['description'] },
  { name: 'note', type: 'text', required: false },
] as unknown as TemplateVariable[];

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(BulkInputError);
    return (error as BulkInputError).message;
  }
  throw new Error('no error');
};

describe('rowsToInputs', () => {
  it('refuses a cell PostgreSQL cannot store (a NUL, a lone surrogate), naming its row and column', () => {
    const sheet = {
      header: ['client_name', 'note'],
      rows: [
        { rowNumber: 2, cells: ['Ada', 'fine'] },
        { rowNumber: 3, cells: ['Grace', 'a\u0000b'] },
      ],
    };
    expect(refusal(() => rowsToInputs(sheet, variables, MiB))).toBe(
      'Row 3, column "note" holds a NUL character or half of a surrogate pair, which cannot be stored; remove it and upload again',
    );
  });

  it('refuses a list cell whose JSON nests too deep, naming its row and column', () => {
    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const sheet = { header: ['client_name', 'items'], rows: [{ rowNumber: 4, cells: ['Ada', deep] }] };
    expect(refusal(() => rowsToInputs(sheet, variables, MiB))).toBe(
      'Row 4, column "items" is nested more than 100 levels deep (arrays and objects inside one another); flatten it and upload again',
    );
  });

  it('reads TRUE/FALSE cells of a boolean token as booleans, anything else as text (the row then fails naming it)', () => {
    const flags = [{ name: 'paid', type: 'boolean', required: true }] as unknown as TemplateVariable[];
    const inputs = rowsToInputs({ header: ['paid'], rows: [2, 3, 4].map((rowNumber, i) => ({ rowNumber, cells: [['TRUE', 'false', 'ja'][i]] })) }, flags, MiB);
    expect(inputs.map((row) => row.input.paid)).toEqual([true, false, 'ja']);
  });

  it('corrects header names like template tokens, parses list cells as JSON and leaves empty cells out', () => {
    const inputs = rowsToInputs(
      {
        header: ['client name', 'items', 'note'],
        rows: [
          { rowNumber: 2, cells: ['Ada', '[{"description":"Pen"}]', undefined] },
          { rowNumber: 3, cells: ['Bob', '[{"description":', ''] },
          { rowNumber: 5, cells: [42, undefined, '=1+2'] },
        ],
      },
      variables,
      MiB,
    );
    expect(inputs).toEqual([
      { rowNumber: 2, input: { client_name: 'Ada', items: [{ description: 'Pen' }] } },
      // Not JSON: passed on as text, so the row fails with the single-document message.
      { rowNumber: 3, input: { client_name: 'Bob', items: '[{"description":' } },
      { rowNumber: 5, input: { client_name: 42, note: '=1+2' } },
    ]);
  });

  it('refuses unknown, duplicate and missing required columns', () => {
    expect(refusal(() => rowsToInputs({ header: ['client_name', 'colour'], rows: [] }, variables, MiB))).toBe(
      'Unknown column "colour"; the template\'s tokens are client_name, items, note',
    );
    expect(refusal(() => rowsToInputs({ header: ['client_name', 'client name'], rows: [] }, variables, MiB))).toBe('The token "client_name" has two columns');
    expect(refusal(() => rowsToInputs({ header: ['items'], rows: [] }, variables, MiB))).toBe('Missing column for required token "client_name"');
  });

  it("refuses a row whose input is larger than a document's may be, and rows together past MAX_BULK_INPUT_BYTES, naming the row", async () => {
    // One long text in every row: stored once in the workbook's shared strings, copied into each row's input.
    const long = 'x'.repeat(600 * 1024);
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('data');
    sheet.addRow(['client_name', 'note']);
    for (let i = 0; i < 200; i++) sheet.addRow([`Client ${String(i).padStart(3, '0')}`, long]);
    const file = Buffer.from(await workbook.xlsx.writeBuffer());
    expect(file.length).toBeLessThan(64 * 1024);
    const rows = await readSpreadsheet(file, 'xlsx', 1_000);

    expect(refusal(() => rowsToInputs(rows, variables, 512 * 1024))).toBe(
      "Row 2 holds 600 KiB of input (as JSON); a document's input may be at most 512 KiB: shorten its cells and upload again",
    );
    const rowBytes = JSON.stringify({ client_name: 'Client 000', note: long }).length;
    const lastRow = 1 + Math.floor(MAX_BULK_INPUT_BYTES / rowBytes) + 1;
    expect(refusal(() => rowsToInputs(rows, variables, MiB))).toBe(
      `The rows up to row ${lastRow} hold more than 100 MiB of input (as JSON), the most one bulk job may hold; split the spreadsheet into smaller files and upload them again`,
    );
    expect(rowsToInputs({ header: rows.header, rows: rows.rows.slice(0, lastRow - 2) }, variables, MiB)).toHaveLength(lastRow - 2);
  });
});
