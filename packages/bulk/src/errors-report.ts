import { excelJsLibrary } from './excel-library';

/** Text a spreadsheet would read as a formula (or DDE) is prefixed so it stays text. */
export function inertCell(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** errors.xlsx: columns `row` and `error`, one line per failed row (only the header when none). */
export async function buildErrorsWorkbook(failures: { row: number; error: string }[]): Promise<Buffer> {
  const ExcelJS = excelJsLibrary();
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('errors');
  sheet.columns = [
    { header: 'row', key: 'row', width: 8 },
    { header: 'error', key: 'error', width: 100 },
  ];
  for (const failure of failures) sheet.addRow({ row: failure.row, error: inertCell(failure.error) });
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
