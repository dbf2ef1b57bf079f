import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Whether ExcelJS is loaded in a fresh Node process after `script` has run on the built package (as the services load it). */
function excelJsLoadedAfter(script: string): boolean {
  const program = `(async () => {
    const bulk = require(${JSON.stringify(path.join(__dirname, '..', 'dist', 'index.js'))});
    ${script}
    process.stdout.write(String(Object.keys(require.cache).some((file) => file.includes('/exceljs/'))));
  })();`;
  return execFileSync(process.execPath, ['-e', program], { encoding: 'utf8' }) === 'true';
}

describe('ExcelJS is loaded on first use', () => {
  it('not by loading the package, as every gateway and render worker does at start', () => {
    expect(excelJsLoadedAfter('')).toBe(false);
  });

  it('by the first spreadsheet written', () => {
    expect(excelJsLoadedAfter('await bulk.buildErrorsWorkbook([{ row: 2, error: "x" }]);')).toBe(true);
  });
});
