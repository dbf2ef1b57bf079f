import type { TemplateVariable } from '@docgen/templating';
import { BulkInputError } from './bulk-input-error';
import { rowsToInputs } from './rows-to-inputs';

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
    expect(refusal(() => rowsToInputs(sheet, variables))).toBe(
      'Row 3, column "note" holds a NUL character or half of a surrogate pair, which cannot be stored; remove it and upload again',
    );
  });

  it('refuses a list cell whose JSON nests too deep, naming its row and column', () => {
    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const sheet = { header: ['client_name', 'items'], rows: [{ rowNumber: 4, cells: ['Ada', deep] }] };
    expect(refusal(() => rowsToInputs(sheet, variables))).toBe(
      'Row 4, column "items" is nested more than 100 levels deep (arrays and objects inside one another); flatten it and upload again',
    );
  });

  it('reads TRUE/FALSE cells of a boolean token as booleans, anything else as text (the row then fails naming it)', () => {
    const flags = [{ name: 'paid', type: 'boolean', required: true }] as unknown as TemplateVariable[];
    const inputs = rowsToInputs({ header: ['paid'], rows: [2, 3, 4].map((rowNumber, i) => ({ rowNumber, cells: [['TRUE', 'false', 'ja'][i]] })) }, flags);
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
    );
    expect(inputs).toEqual([
      { rowNumber: 2, input: { client_name: 'Ada', items: [{ description: 'Pen' }] } },
      // Not JSON: passed on as text, so the row fails with the single-document message.
      { rowNumber: 3, input: { client_name: 'Bob', items: '[{"description":' } },
      { rowNumber: 5, input: { client_name: 42, note: '=1+2' } },
    ]);
  });

  it('refuses unknown, duplicate and missing required columns', () => {
    expect(refusal(() => rowsToInputs({ header: ['client_name', 'colour'], rows: [] }, variables))).toBe(
      'Unknown column "colour"; the template\'s tokens are client_name, items, note',
    );
    expect(refusal(() => rowsToInputs({ header: ['client_name', 'client name'], rows: [] }, variables))).toBe('The token "client_name" has two columns');
    expect(refusal(() => rowsToInputs({ header: ['items'], rows: [] }, variables))).toBe('Missing column for required token "client_name"');
  });
});
