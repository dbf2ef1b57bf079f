import type ExcelJS from 'exceljs';

/**
 * ExcelJS, loaded on the first spreadsheet read or written: it is about 28 MB of memory and a
 * quarter of a second at start (bench/: `require` timed and RSS read before and after) that
 * every gateway and render worker would otherwise pay for bulk jobs only some of them see.
 */
export async function loadExcelJS(): Promise<typeof ExcelJS> {
  return (await import('exceljs')).default;
}
