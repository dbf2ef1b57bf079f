import path from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import type ExcelJS from 'exceljs';
import PizZip from 'pizzip';
import { BulkInputError } from './bulk-input-error';
import { checkZipIntegrity } from './check-zip-integrity';
import { excelJsLibrary } from './excel-library';
import { MAX_EXPANDED_XLSX_BYTES, MAX_SHEET_ROW } from './limits';
import { withStallLimit } from './stall-limit';

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

/**
 * A formula's saved result, read from the cell rather than from its value, which drops a result
 * of 0 or "" (ExcelJS's FormulaValue). The streaming reader reads a numeric result as a number
 * whatever the cell's format, so a date is made one here as ExcelJS makes a plain date cell one.
 */
function formulaResult(cell: ExcelJS.Cell, result: unknown, date1904: boolean): CellValue | undefined {
  if (result === undefined || result === null) {
    throw new BulkInputError(
      'spreadsheet_invalid',
      `Cell ${cell.address} has a formula without its computed value (the file was written by a program that does not calculate); open the file in your spreadsheet program and save it again`,
    );
  }
  if (typeof result !== 'number') return cellValue(result as ExcelJS.CellValue);
  if (Number.isNaN(result)) return undefined; // an error such as #N/A, as a plain error cell
  return isDateFormat(cell.numFmt) ? cellValue(excelDate(result, date1904)) : result;
}

/** ExcelJS's own tests for a date format and a date's serial number (lib/utils/utils.js), for formula results. */
const isDateFormat = (format: string | undefined) => !!format && /[ymdhMsb]+/.test(format.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));
const excelDate = (serial: number, date1904: boolean) => new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000));

// Longest wait for the next row (a large shared-strings part is read before the first one).
const XLSX_STALL_MS = 10_000;

const damagedXlsx = () =>
  new BulkInputError('spreadsheet_invalid', 'The .xlsx file could not be read (the zip archive is damaged); save it again as Excel Workbook (.xlsx)');
const tooLarge = (what: string) =>
  new BulkInputError('body_too_large', `The .xlsx expands to ${what} when unzipped; the limit is ${MAX_EXPANDED_XLSX_BYTES / 1024 / 1024} MiB`);

/**
 * Refuses a zip bomb by the sizes the archive declares, before anything is inflated; declared
 * sizes can be forged, so checkZipIntegrity then inflates each entry with zlib's output capped
 * at what is left of the limit.
 */
function assertDeclaredSize(zip: PizZip): void {
  const entries = Object.values(zip.files) as unknown as { _data?: { uncompressedSize?: number } }[];
  const declared = entries.reduce((total, entry) => total + (entry._data?.uncompressedSize ?? 0), 0);
  if (declared > MAX_EXPANDED_XLSX_BYTES) throw tooLarge(`${Math.ceil(declared / 1024 / 1024)} MiB`);
}

/**
 * ExcelJS's streaming reader parses a sheet as it arrives only once it has read the workbook's
 * relationships and shared strings; a sheet met before them (Excel and ExcelJS both write the
 * sheets first) is copied to a temp file deleted only if the reader runs to its end (exceljs
 * issue #2147), which ours never does: it stops after the first sheet or at a refusal. So these
 * parts go first (a part the workbook lacks is skipped), the workbook and styles too, which a
 * sheet read at once needs for its name and its dates.
 */
const READ_FIRST = ['[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/styles.xml', 'xl/sharedStrings.xml'];
// Without them ExcelJS would wait for them, with every sheet in a temp file.
const EMPTY_PARTS = {
  'xl/_rels/workbook.xml.rels': '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>',
  'xl/sharedStrings.xml': '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>',
};

// Strangers' XML: each pattern here costs time linear in the part, whatever it holds (no
// lazy body scanned again from every start, no alternation repeated once per character).
/** An rPh or si tag, opening, closing or empty; `[^<>]*` ends at the next tag, so a tag that never closes costs its own length. */
const READING_OR_STRING_TAG = /<(\/?)(?:[\w-]+:)?(rPh|si)\b[^<>]*>/g;
// A sheet's or a relationship's tag, unrolled (plain, then quoted-and-plain): one way to match
// it, quoted values may hold > (a sheet named a>b) but not <, so a try never runs past the next tag.
const SHEET_TAG = /<(?:\w+:)?sheet\s[^<>"']*(?:(?:"[^"<]*"|'[^'<]*')[^<>"']*)*>/g;
const RELATIONSHIP_TAG = /<(?:\w+:)?Relationship\s[^<>"']*(?:(?:"[^"<]*"|'[^'<]*')[^<>"']*)*>/g;
const attributePattern = (name: string) => new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`);
const STATE = attributePattern('state');
const RELATIONSHIP_ID = attributePattern('\\w+:id');
const ID = attributePattern('Id');
const TARGET = attributePattern('Target');
const attribute = (tag: string, pattern: RegExp) =>
  tag
    .match(pattern)
    ?.slice(1)
    .find((value) => value !== undefined);

/**
 * Excel keeps Japanese text typed through an IME with its reading beside it (`<si><t>山田</t>
 * <rPh …><t>ヤマダ</t></rPh></si>`); ExcelJS keeps the last `<t>` of a shared string, the
 * reading, so 山田 would become ヤマダ in the documents. The readings are not what the cell shows.
 */
function dropPhoneticReadings(zip: PizZip, xml: string | undefined): void {
  if (xml?.includes('rPh')) zip.file('xl/sharedStrings.xml', withoutPhoneticReadings(xml));
}

const FORMAT_CODE = /\sformatCode\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/g;
// Excel's own limit; ExcelJS's date-format test is quadratic in a format's length and runs for every styled number cell.
const MAX_FORMAT_CODE = 255;

function refuseLongNumberFormats(styles: string): void {
  for (const match of styles.matchAll(FORMAT_CODE)) {
    if ((match[1] ?? match[2] ?? '').length > MAX_FORMAT_CODE)
      throw new BulkInputError(
        'spreadsheet_invalid',
        `The workbook has a number format longer than the ${MAX_FORMAT_CODE} characters Excel allows; save it again from your spreadsheet program`,
      );
  }
}

/** Removes each rPh element (empty, or opened and closed within one shared string); a reading that never closes is left to the XML parser. */
function withoutPhoneticReadings(xml: string): string {
  const kept: string[] = [];
  let keptUpTo = 0;
  let readingAt = -1;
  for (const match of xml.matchAll(READING_OR_STRING_TAG)) {
    const [tag, closing, name] = match;
    const at = match.index;
    if (name !== 'rPh')
      readingAt = -1; // a reading never crosses a string's bounds
    else if (!closing && tag.endsWith('/>')) {
      kept.push(xml.slice(keptUpTo, at));
      keptUpTo = at + tag.length;
    } else if (!closing) readingAt = at;
    else if (readingAt >= 0) {
      kept.push(xml.slice(keptUpTo, readingAt));
      keptUpTo = at + tag.length;
      readingAt = -1;
    }
  }
  kept.push(xml.slice(keptUpTo));
  return kept.join('');
}

/** The parts checkedWorkbook reads itself, as checkZipIntegrity inflated them. */
const PARTS_READ_HERE = ['xl/styles.xml', 'xl/sharedStrings.xml', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels'];

/**
 * The workbook as exactly the entries its central directory lists, after checking their sizes
 * and CRCs. ExcelJS's streaming reader reads local headers in file order instead, so bytes the
 * directory does not list (an entry placed before the real parts, a second copy of a part)
 * would reach it unchecked: a 51 KB upload inflating a hidden 50 MB sharedStrings.xml. The
 * rebuilt zip reuses each checked entry's compressed bytes, so nothing is deflated again, and
 * puts the parts ExcelJS must read before any sheet first (READ_FIRST).
 */
export function checkedWorkbook(file: Buffer): Buffer {
  let zip: PizZip;
  try {
    zip = new PizZip(file);
  } catch {
    throw damagedXlsx();
  }
  assertDeclaredSize(zip);
  // The parts read here are let go before the archive is written out again (up to 100 MiB of them).
  const sheet = checkParts(zip, checkZipIntegrity(zip, MAX_EXPANDED_XLSX_BYTES, PARTS_READ_HERE));
  for (const [name, part] of Object.entries(EMPTY_PARTS)) if (!zip.files[name]) zip.file(name, part);
  const first = sheet ? [...READ_FIRST, sheet] : READ_FIRST;
  const rest = Object.keys(zip.files).filter((name) => !first.includes(name));
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE', fileOrder: () => [...first, ...rest] });
}

/** The checks on the parts' text (number formats, phonetic readings), and the first visible sheet's part. */
function checkParts(zip: PizZip, parts: Map<string, Buffer>): string | undefined {
  const text = (name: string) => parts.get(name)?.toString('utf8');
  refuseLongNumberFormats(text('xl/styles.xml') ?? '');
  dropPhoneticReadings(zip, text('xl/sharedStrings.xml'));
  return firstVisibleSheet(zip, text('xl/workbook.xml') ?? '', text('xl/_rels/workbook.xml.rels') ?? '');
}

/** A worksheet's part as ExcelJS's streaming reader finds it (chartsheets and others are not read). */
const WORKSHEET_PART = /^xl\/worksheets\/sheet\d+\.xml$/;

/**
 * The part of the sheet a person sees first: the first tab (workbook.xml's order) that is a
 * worksheet (not a chart) and not hidden. ExcelJS reads sheets in the archive's order, which
 * is the order they were created in, not the tabs', and reads hidden ones too; so this part
 * goes before the other sheets. Undefined when the workbook does not say (the archive's first
 * worksheet is read then).
 */
function firstVisibleSheet(zip: PizZip, workbook: string, relationships: string): string | undefined {
  const targets = new Map<string, string>();
  for (const [tag] of relationships.matchAll(RELATIONSHIP_TAG)) {
    const id = attribute(tag, ID);
    const target = attribute(tag, TARGET);
    if (id !== undefined && target !== undefined && !targets.has(id)) targets.set(id, target);
  }
  let firstWorksheet: string | undefined;
  for (const [tag] of workbook.matchAll(SHEET_TAG)) {
    const target = targets.get(attribute(tag, RELATIONSHIP_ID) ?? '');
    if (target === undefined) continue;
    const part = target.startsWith('/') ? target.slice(1) : path.posix.normalize(`xl/${target}`);
    if (!WORKSHEET_PART.test(part) || !zip.files[part]) continue;
    if ((attribute(tag, STATE) ?? 'visible') === 'visible') return part;
    firstWorksheet ??= part;
  }
  return firstWorksheet;
}

/**
 * The first sheet's rows as they stream out of the workbook: ExcelJS's streaming reader
 * keeps no rows in memory, so a large upload costs its shared strings, not its whole grid.
 */
async function* xlsxRows(file: Buffer): AsyncGenerator<SourceRow> {
  const { stream, ValueType } = excelJsLibrary();
  const reader = new stream.xlsx.WorkbookReader(Readable.from([checkedWorkbook(file)]), {
    sharedStrings: 'cache',
    styles: 'cache', // dates are numbers with a date format
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'ignore',
  });
  let sheets = 0;
  try {
    for await (const sheet of reader) {
      sheets += 1;
      // The workbook part is read before any sheet (READ_FIRST).
      const date1904 = (reader as unknown as { properties?: { model?: { date1904?: boolean } } }).properties?.model?.date1904 === true;
      let previous = 0;
      for await (const row of sheet) {
        previous = checkedRowNumber(row.number, previous);
        const cells: (CellValue | undefined)[] = [];
        row.eachCell((cell, column) => {
          const value = cell.value;
          // A formula filled down is stored once ("shared"): the cells after the first have an
          // empty formula, which ExcelJS does not take for one, and keep their result in their value.
          const filledDown = !!value && typeof value === 'object' && 'formula' in value;
          cells[column - 1] =
            cell.type === ValueType.Formula || filledDown
              ? formulaResult(cell, cell.type === ValueType.Formula ? cell.result : (value as { result?: unknown }).result, date1904)
              : cellValue(value);
        });
        yield { rowNumber: row.number, cells: Array.from(cells) };
      }
      break; // the first sheet only
    }
  } catch (error) {
    if (error instanceof BulkInputError) throw error;
    throw new BulkInputError('spreadsheet_invalid', 'The .xlsx file could not be read; save it again from your spreadsheet program as Excel Workbook (.xlsx)');
  }
  if (sheets === 0) throw new BulkInputError('spreadsheet_invalid', 'The workbook has no sheet');
}

/**
 * A row's number as the file states it (its `r`), which becomes the document's row_number and
 * its file's name in the ZIP: a whole number, past the previous row's, within the grid.
 */
function checkedRowNumber(rowNumber: number, previous: number): number {
  const resave = 'save the file again from your spreadsheet program as Excel Workbook (.xlsx)';
  if (!Number.isInteger(rowNumber)) {
    throw new BulkInputError('spreadsheet_invalid', `${previous ? `The row after row ${previous}` : 'The first row'} has no row number; ${resave}`);
  }
  if (rowNumber <= previous)
    throw new BulkInputError('spreadsheet_invalid', `Row ${rowNumber} comes after row ${previous}: the rows are out of order or repeated; ${resave}`);
  if (rowNumber > MAX_SHEET_ROW)
    throw new BulkInputError('spreadsheet_invalid', `Row ${rowNumber} is past row ${MAX_SHEET_ROW}, the last row a spreadsheet has; ${resave}`);
  return rowNumber;
}

const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);

/**
 * The CSV's text: UTF-16 when it starts with its BOM, otherwise UTF-8 (a BOM is dropped).
 * Bytes that are not UTF-8 are refused rather than read as U+FFFD: Excel's plain "CSV" is
 * Windows-1252, and its accented letters would otherwise be garbled in every document.
 */
function csvText(file: Buffer): string {
  const utf16 = file.subarray(0, 2).equals(UTF16LE_BOM);
  try {
    return new TextDecoder(utf16 ? 'utf-16le' : 'utf-8', { fatal: true }).decode(file);
  } catch {
    throw new BulkInputError(
      'spreadsheet_invalid',
      `The .csv file is not ${utf16 ? 'valid UTF-16' : 'UTF-8'} text; save it again from your spreadsheet program as "CSV UTF-8 (comma delimited)"`,
    );
  }
}

function* csvRows(file: Buffer): Generator<SourceRow> {
  const text = csvText(file);
  let table: string[][];
  try {
    table = parse(text, { relax_column_count: true, skip_empty_lines: false }) as string[][];
  } catch (error) {
    throw new BulkInputError('spreadsheet_invalid', `The .csv file could not be read: ${(error as Error).message}`);
  }
  for (const [index, cells] of table.entries()) yield { rowNumber: index + 1, cells };
}

interface SourceRow {
  rowNumber: number;
  cells: (CellValue | undefined)[];
}

function headerOf(row: SourceRow | undefined): string[] {
  const cells = row?.rowNumber === 1 ? [...row.cells] : [];
  while (cells.length && isEmpty(cells[cells.length - 1])) cells.pop();
  if (cells.length === 0) throw new BulkInputError('spreadsheet_invalid', 'The first row must hold the token names; it is empty');
  return cells.map((cell, index) => {
    if (isEmpty(cell)) throw new BulkInputError('spreadsheet_invalid', `Column ${index + 1} of the first row has no token name`);
    return String(cell).trim();
  });
}

/**
 * The first sheet (or the CSV) as a header and data rows. Empty rows are skipped, so empty
 * trailing rows cost nothing, but row numbers stay the ones the spreadsheet shows. Rows past
 * `maxRows` are only counted, for the refusal's message.
 */
export async function readSpreadsheet(
  file: Buffer,
  format: SpreadsheetFormat,
  maxRows: number,
  /** Checks the header as soon as it is read: a wrong one is refused before any data row. */
  onHeader: (header: string[]) => void = () => {},
): Promise<Sheet> {
  let header: string[] | undefined;
  const rows: SheetRow[] = [];
  let count = 0;
  for await (const row of format === 'xlsx' ? withStallLimit(xlsxRows(file), XLSX_STALL_MS) : csvRows(file)) {
    if (!header) {
      header = headerOf(row);
      onHeader(header);
      if (row.rowNumber === 1) continue;
    }
    if (row.cells.every(isEmpty)) continue;
    if (row.cells.slice(header.length).some((cell) => !isEmpty(cell))) {
      throw new BulkInputError('spreadsheet_invalid', `Row ${row.rowNumber} has values in columns without a token name in the first row`);
    }
    count += 1;
    if (count <= maxRows) rows.push({ rowNumber: row.rowNumber, cells: row.cells.slice(0, header.length) });
  }
  if (!header) headerOf(undefined);
  if (count > maxRows) throw new BulkInputError('spreadsheet_invalid', `The spreadsheet has ${count} rows; at most ${maxRows} are accepted per bulk job`);
  if (count === 0) throw new BulkInputError('spreadsheet_invalid', 'The spreadsheet has no rows below the header');
  return { header: header!, rows };
}
