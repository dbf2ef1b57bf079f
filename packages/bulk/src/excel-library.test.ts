import path from 'node:path';
import { packagesLoadedAfter } from '@docgen/testing';

/** Whether ExcelJS is loaded in a fresh Node process after `script` has run on the built package (as the services load it). */
const excelJsLoadedAfter = (script: string): boolean =>
  packagesLoadedAfter(path.join(__dirname, '..', 'dist', 'index.js'), script, ['exceljs']).includes('exceljs');

describe('ExcelJS is loaded on first use', () => {
  it('not by loading the package, as every gateway and render worker does at start', () => {
    expect(excelJsLoadedAfter('')).toBe(false);
  });

  it('by the first spreadsheet written', () => {
    expect(excelJsLoadedAfter('await lib.buildErrorsWorkbook([{ row: 2, error: "x" }]);')).toBe(true);
  });
});
