import ExcelJS from 'exceljs';
import PizZip from 'pizzip';
import { buildErrorsWorkbook, inertCell } from './errors-report';

async function readBack(file: Buffer) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(file as unknown as ArrayBuffer);
  const rows: ExcelJS.CellValue[][] = [];
  workbook.worksheets[0]!.eachRow((row) => rows.push((row.values as ExcelJS.CellValue[]).slice(1)));
  return rows;
}

describe('errors.xlsx', () => {
  it('holds only the header when no row failed', async () => {
    expect(await readBack(await buildErrorsWorkbook([]))).toEqual([['row', 'error']]);
  });

  it('writes formula-like text so that no spreadsheet evaluates it', async () => {
    const formulas = ['=HYPERLINK("http://evil.example","x")', '+1+2', '-2+3', '@SUM(A1)', '\t=1'];
    const file = await buildErrorsWorkbook(formulas.map((error, index) => ({ row: index + 2, error })));
    const rows = await readBack(file);
    expect(rows.slice(1)).toEqual(formulas.map((text, index) => [index + 2, `'${text}`]));
    // Stored as strings, never as <f> formula elements.
    expect(new PizZip(file).file('xl/worksheets/sheet1.xml')!.asText()).not.toContain('<f>');
  });

  it('leaves ordinary messages alone', () => {
    expect(inertCell('Missing required token "client_name"')).toBe('Missing required token "client_name"');
  });
});
