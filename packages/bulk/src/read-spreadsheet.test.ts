import ExcelJS from 'exceljs';
import PizZip from 'pizzip';
import { BulkInputError } from './bulk-input-error';
import { readSpreadsheet } from './read-spreadsheet';

const csv = (text: string) => Buffer.from(text, 'utf8');

async function xlsx(rows: ExcelJS.CellValue[][]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('data');
  rows.forEach((row, index) => (sheet.getRow(index + 1).values = row));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BulkInputError);
  const { status, message } = error as BulkInputError;
  return { status, message };
};

describe('readSpreadsheet', () => {
  it('reads a CSV with a BOM, keeps row numbers as shown and ignores empty rows', async () => {
    const sheet = await readSpreadsheet(csv('\uFEFFclient name,total\nAda,10\n,\nBob,"20,5"\n\n,\n'), 'csv', 100);
    expect(sheet.header).toEqual(['client name', 'total']);
    expect(sheet.rows).toEqual([
      { rowNumber: 2, cells: ['Ada', '10'] },
      { rowNumber: 4, cells: ['Bob', '20,5'] },
    ]);
  });

  it('reads the first sheet of a workbook: formulas as their result, dates as ISO dates', async () => {
    const file = await xlsx([['name', 'due', 'total'], ['Ada', new Date(Date.UTC(2026, 10, 22)), { formula: '1+2', result: 3 }], [], ['Bob', '2026-12-01', 4]]);
    const sheet = await readSpreadsheet(file, 'xlsx', 100);
    expect(sheet.rows).toEqual([
      { rowNumber: 2, cells: ['Ada', '2026-11-22', 3] },
      { rowNumber: 4, cells: ['Bob', '2026-12-01', 4] },
    ]);
  });

  it('refuses more rows than the limit before anything else happens', async () => {
    const body = ['name', ...Array.from({ length: 11 }, (_, i) => `row ${i}`)].join('\n');
    expect(await refusal(readSpreadsheet(csv(body), 'csv', 10))).toEqual({
      status: 422,
      message: 'The spreadsheet has 11 rows; at most 10 are accepted per bulk job',
    });
  });

  it('explains malformed files', async () => {
    expect(await refusal(readSpreadsheet(csv('name\n"unclosed\n'), 'csv', 10))).toMatchObject({
      status: 422,
      message: expect.stringMatching(/^The \.csv file could not be read: /),
    });
    expect(await refusal(readSpreadsheet(Buffer.from('PK\x03\x04 not really'), 'xlsx', 10))).toMatchObject({
      status: 422,
      message: expect.stringContaining('could not be read'),
    });
    const notAWorkbook = new PizZip();
    notAWorkbook.file('hello.txt', 'hi');
    expect(await refusal(readSpreadsheet(notAWorkbook.generate({ type: 'nodebuffer' }), 'xlsx', 10))).toMatchObject({ status: 422 });
  });

  it('refuses a zip bomb by its declared size', async () => {
    const bomb = new PizZip();
    bomb.file('xl/worksheets/sheet1.xml', Buffer.alloc(101 * 1024 * 1024, 0x20));
    const file = bomb.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
    expect(file.length).toBeLessThan(1024 * 1024);
    expect(await refusal(readSpreadsheet(file, 'xlsx', 10))).toEqual({
      status: 413,
      message: 'The .xlsx expands to 101 MiB when unzipped; the limit is 100 MiB',
    });
  });

  it('refuses a zip bomb whose entries declare forged small sizes, by inflating with a cap', async () => {
    const bomb = new PizZip();
    bomb.file('[Content_Types].xml', '<Types/>');
    bomb.file('xl/worksheets/sheet1.xml', Buffer.alloc(101 * 1024 * 1024, 0x20));
    const file = bomb.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
    // Every local and central header claims 1,000 bytes.
    for (let at = 0; at < file.length - 4; at++) {
      const signature = file.readUInt32LE(at);
      if (signature === 0x04034b50) file.writeUInt32LE(1_000, at + 22);
      if (signature === 0x02014b50) file.writeUInt32LE(1_000, at + 24);
    }
    expect(await refusal(readSpreadsheet(file, 'xlsx', 10))).toEqual({
      status: 413,
      message: 'The .xlsx expands to more than 100 MiB when unzipped; the limit is 100 MiB',
    });
  });

  it('checks the header before reading any row', async () => {
    const body = ['nom', ...Array.from({ length: 50 }, (_, i) => `row ${i}`)].join('\n');
    const wrongHeader = () => {
      throw new BulkInputError(422, 'Unknown column "nom"');
    };
    expect(await refusal(readSpreadsheet(csv(body), 'csv', 10, wrongHeader))).toEqual({ status: 422, message: 'Unknown column "nom"' });
    const workbook = await xlsx([['nom'], ...Array.from({ length: 50 }, (_, i) => [`row ${i}`])]);
    const seen: string[][] = [];
    await readSpreadsheet(workbook, 'xlsx', 100, (header) => void seen.push(header));
    expect(seen).toEqual([['nom']]);
    expect(await refusal(readSpreadsheet(workbook, 'xlsx', 10, wrongHeader))).toEqual({ status: 422, message: 'Unknown column "nom"' });
  });

  it('explains a missing header, a blank header cell, values outside the header and no data', async () => {
    expect(await refusal(readSpreadsheet(csv('\nAda\n'), 'csv', 10))).toEqual({ status: 422, message: 'The first row must hold the token names; it is empty' });
    expect(await refusal(readSpreadsheet(csv('name,,total\nAda,,1\n'), 'csv', 10))).toEqual({
      status: 422,
      message: 'Column 2 of the first row has no token name',
    });
    expect(await refusal(readSpreadsheet(csv('name\nAda,extra\n'), 'csv', 10))).toEqual({
      status: 422,
      message: 'Row 2 has values in columns without a token name in the first row',
    });
    expect(await refusal(readSpreadsheet(csv('name\n\n'), 'csv', 10))).toEqual({ status: 422, message: 'The spreadsheet has no rows below the header' });
  });
});
