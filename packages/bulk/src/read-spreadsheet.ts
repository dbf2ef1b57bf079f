import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import PizZip from 'pizzip';
import { BulkInputError } from './bulk-input-error';

export type CellValue = string | number | boolean;
export type SpreadsheetFormat = 'xlsx' | 'csv';

export interface SheetRow {
  /** The row number a spreadsheet shows (the header is row 1). */
  rowNumber: number;
  cells: (CellValue | undefined)[];
}

export interface Sheet {
  header: string[];
  rows: SheetRow[];
}

const isEmpty = (cell: CellValue | undefined) => cell === undefined || (typeof cell === 'string' && cell.trim() === '');

/** What a cell shows: formulas as their result, dates as ISO dates, rich text as its text. */
function cellValue(value: ExcelJS.CellValue): CellValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'object') {
    if ('result' in value) return cellValue(value.result as ExcelJS.CellValue);
    if ('richText' in value) return value.richText.map((part) => part.text).join('');
    if ('text' in value) return String(value.text);
    if ('error' in value) return undefined;
  }
  return String(value);
}

const MAX_EXPANDED_XLSX_BYTES = 100 * 1024 * 1024;

/** Refuses a zip bomb by the sizes the archive declares, before anything is inflated. */
function assertExpandedSize(file: Buffer): void {
  let zip: PizZip;
  try {
    zip = new PizZip(file);
  } catch {
    throw new BulkInputError(422, 'The .xlsx file could not be read (the zip archive is damaged); save it again as Excel Workbook (.xlsx)');
  }
  const entries = Object.values(zip.files) as unknown as { _data?: { uncompressedSize?: number } }[];
  const expanded = entries.reduce((total, entry) => total + (entry._data?.uncompressedSize ?? 0), 0);
  if (expanded > MAX_EXPANDED_XLSX_BYTES) {
    throw new BulkInputError(413, `The .xlsx expands to ${Math.ceil(expanded / 1024 / 1024)} MiB when unzipped; the limit is ${MAX_EXPANDED_XLSX_BYTES / 1024 / 1024} MiB`);
  }
}

async function readXlsx(file: Buffer): Promise<(CellValue | undefined)[][]> {
  assertExpandedSize(file);
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(file as unknown as ArrayBuffer);
  } catch {
    throw new BulkInputError(422, 'The .xlsx file could not be read; save it again from your spreadsheet program as Excel Workbook (.xlsx)');
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new BulkInputError(422, 'The workbook has no sheet');
  const rows: (CellValue | undefined)[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row, rowNumber) => {
    const values = Array.isArray(row.values) ? row.values.slice(1) : [];
    rows[rowNumber - 1] = values.map((value) => cellValue(value as ExcelJS.CellValue));
  });
  return Array.from(rows, (row) => row ?? []);
}

function readCsv(file: Buffer): (CellValue | undefined)[][] {
  try {
    return parse(file, { bom: true, relax_column_count: true, skip_empty_lines: false }) as string[][];
  } catch (error) {
    throw new BulkInputError(422, `The .csv file could not be read: ${(error as Error).message}`);
  }
}

/**
 * The first sheet (or the CSV) as a header and data rows. Empty rows are skipped, so empty
 * trailing rows cost nothing, but row numbers stay the ones the spreadsheet shows.
 */
export async function readSpreadsheet(file: Buffer, format: SpreadsheetFormat, maxRows: number): Promise<Sheet> {
  const table = format === 'xlsx' ? await readXlsx(file) : readCsv(file);
  const [headerRow = [], ...dataRows] = table;
  while (headerRow.length && isEmpty(headerRow[headerRow.length - 1])) headerRow.pop();
  if (headerRow.length === 0) throw new BulkInputError(422, 'The first row must hold the token names; it is empty');
  const header = headerRow.map((cell, index) => {
    if (isEmpty(cell)) throw new BulkInputError(422, `Column ${index + 1} of the first row has no token name`);
    return String(cell).trim();
  });
  const rows: SheetRow[] = [];
  dataRows.forEach((cells, index) => {
    if (cells.every(isEmpty)) return;
    if (cells.slice(header.length).some((cell) => !isEmpty(cell))) {
      throw new BulkInputError(422, `Row ${index + 2} has values in columns without a token name in the first row`);
    }
    rows.push({ rowNumber: index + 2, cells: cells.slice(0, header.length) });
  });
  if (rows.length > maxRows) throw new BulkInputError(422, `The spreadsheet has ${rows.length} rows; at most ${maxRows} are accepted per bulk job`);
  if (rows.length === 0) throw new BulkInputError(422, 'The spreadsheet has no rows below the header');
  return { header, rows };
}
