import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import ExcelJS from 'exceljs';
import PizZip from 'pizzip';
import { buildXlsx, withHiddenEntry } from '@docgen/testing';
import { BulkInputError } from './bulk-input-error';
import { checkedWorkbook, readSpreadsheet } from './read-spreadsheet';

const csv = (text: string) => Buffer.from(text, 'utf8');

async function xlsx(rows: ExcelJS.CellValue[][], { date1904 = false, dateCells = [] as string[] } = {}): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.properties.date1904 = date1904;
  const sheet = workbook.addWorksheet('data');
  rows.forEach((row, index) => (sheet.getRow(index + 1).values = row));
  for (const address of dateCells) sheet.getCell(address).numFmt = 'yyyy-mm-dd';
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BulkInputError);
  const { code, message } = error as BulkInputError;
  return { code, message };
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

  it('refuses a CSV that is not UTF-8 (Excel\'s plain "CSV" is Windows-1252) instead of garbling it', async () => {
    const cp1252 = Buffer.from([...Buffer.from('client name\nRen'), 0xe9, ...Buffer.from(' M'), 0xfc, ...Buffer.from('ller\n')]);
    expect(await refusal(readSpreadsheet(cp1252, 'csv', 100))).toEqual({
      code: 'spreadsheet_invalid',
      message: 'The .csv file is not UTF-8 text; save it again from your spreadsheet program as "CSV UTF-8 (comma delimited)"',
    });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('client name\nRené Müller\n', 'utf16le')]);
    expect((await readSpreadsheet(utf16, 'csv', 100)).rows).toEqual([{ rowNumber: 2, cells: ['René Müller'] }]);
  });

  it('reads the first sheet of a workbook: formulas as their result, dates as ISO dates', async () => {
    const file = await xlsx([['name', 'due', 'total'], ['Ada', new Date(Date.UTC(2026, 10, 22)), { formula: '1+2', result: 3 }], [], ['Bob', '2026-12-01', 4]]);
    const sheet = await readSpreadsheet(file, 'xlsx', 100);
    expect(sheet.rows).toEqual([
      { rowNumber: 2, cells: ['Ada', '2026-11-22', 3] },
      { rowNumber: 4, cells: ['Bob', '2026-12-01', 4] },
    ]);
  });

  it('reads a formula as the result its file saved, also a result of 0 or "", an error and a date', async () => {
    const results = [
      { formula: '0*1', result: 0 },
      { formula: '""&""', result: '' },
      { formula: 'NA()', result: { error: '#N/A' as const } },
      { formula: 'DATE(2026,11,22)', result: new Date(Date.UTC(2026, 10, 22)) },
      { formula: '"a"&"b"', result: 'ab' },
    ];
    const header = ['zero', 'empty', 'error', 'due', 'text'];
    const sheet = await readSpreadsheet(await xlsx([header, results], { dateCells: ['D2'] }), 'xlsx', 100);
    expect(sheet.rows).toEqual([{ rowNumber: 2, cells: [0, '', undefined, '2026-11-22', 'ab'] }]);
    // A workbook on the 1904 date system (Excel for Mac's old default) saves the same day as another number.
    const mac = await readSpreadsheet(await xlsx([header, results], { dateCells: ['D2'], date1904: true }), 'xlsx', 100);
    expect(mac.rows[0]!.cells[3]).toBe('2026-11-22');
  });

  it('reads a formula filled down (stored once, "shared") in every row, as the first', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('data');
    sheet.getRow(1).values = ['total', 'due'];
    sheet.fillFormula('A2:A4', '0*ROW()', [0, 0, 7]);
    sheet.fillFormula('B2:B4', 'DATE(2026,11,21)+ROW()', [46348, 46349, 46350]);
    for (const address of ['B2', 'B3', 'B4']) sheet.getCell(address).numFmt = 'yyyy-mm-dd';
    const file = Buffer.from(await workbook.xlsx.writeBuffer());
    expect(new PizZip(file).file('xl/worksheets/sheet1.xml')!.asText()).toContain('<f t="shared" si="0"/>');
    expect((await readSpreadsheet(file, 'xlsx', 100)).rows).toEqual([
      { rowNumber: 2, cells: [0, '2026-11-22'] },
      { rowNumber: 3, cells: [0, '2026-11-23'] },
      { rowNumber: 4, cells: [7, '2026-11-24'] },
    ]);
  });

  it('refuses a formula saved without its result, naming the cell, instead of reading it as empty', async () => {
    const file = await xlsx([
      ['name', 'total'],
      ['Ada', { formula: '1+1' } as ExcelJS.CellValue],
    ]);
    expect(await refusal(readSpreadsheet(file, 'xlsx', 100))).toEqual({
      code: 'spreadsheet_invalid',
      message:
        'Cell B2 has a formula without its computed value (the file was written by a program that does not calculate); open the file in your spreadsheet program and save it again',
    });
  });

  it('reads Japanese text as the cell shows it, not as its phonetic reading (furigana) Excel keeps beside it', async () => {
    const zip = new PizZip(
      buildXlsx(
        [
          ['name', 'city'],
          ['山田', '東京'],
        ],
        { sharedStrings: true },
      ),
    );
    const strings = zip.file('xl/sharedStrings.xml')!.asText();
    zip.file(
      'xl/sharedStrings.xml',
      strings
        .replace('<t>山田</t>', '<t>山田</t><rPh sb="0" eb="2"><t>ヤマダ</t></rPh><phoneticPr fontId="1"/>')
        .replace('<t>東京</t>', '<r><t>東</t></r><r><t>京</t></r><rPh sb="0" eb="1"><t>トウ</t></rPh><rPh sb="1" eb="2"><t>キョウ</t></rPh>'),
    );
    const sheet = await readSpreadsheet(zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }), 'xlsx', 100);
    expect(sheet.rows).toEqual([{ rowNumber: 2, cells: ['山田', '東京'] }]);
  });

  it('drops phonetic readings in time linear in the shared strings, also when none closes', async () => {
    // 60,000 readings that never close (a 4 MB part, 60 KB zipped): a lazy match to the next
    // </rPh> scans the rest of the part from each of them, quadratic (about 40 s here, 4.6 s for
    // a third as many), where the linear pattern takes about half a second.
    const count = 60_000;
    const zip = new PizZip(buildXlsx([['name'], ['x']], { sharedStrings: true }));
    const strings = `<si><t>name</t><rPh sb="0" eb="1"/></si>${'<si><t>x</t><rPh sb="0" eb="1"><t>y</t></si>'.repeat(count)}`;
    zip.file(
      'xl/sharedStrings.xml',
      `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${strings}</sst>`,
    );
    const file = zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
    const started = process.hrtime.bigint();
    // The part is not well-formed XML (the readings never close): ExcelJS refuses it, once it gets it.
    expect(await refusal(readSpreadsheet(file, 'xlsx', 100))).toMatchObject({ code: 'spreadsheet_invalid' });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(ms).toBeLessThan(15_000);
  });

  it('refuses a number format longer than Excel allows before reading a cell (telling a date format apart is quadratic in its length)', async () => {
    const zip = new PizZip(await xlsx([['due'], [new Date(Date.UTC(2026, 10, 22))]], { dateCells: ['A2'] }));
    const styles = zip.file('xl/styles.xml')!.asText();
    expect(styles).toContain('<numFmts');
    zip.file('xl/styles.xml', styles.replace(/formatCode="[^"]*"/, `formatCode="${'['.repeat(100_000)}yyyy"`));
    const started = process.hrtime.bigint();
    expect(await refusal(readSpreadsheet(zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }), 'xlsx', 100))).toEqual({
      code: 'spreadsheet_invalid',
      message: 'The workbook has a number format longer than the 255 characters Excel allows; save it again from your spreadsheet program',
    });
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(15_000);
  });

  it('finds the first tab in time linear in the workbook, however many sheets and relationships it lists', async () => {
    const count = 50_000;
    const zip = new PizZip(buildXlsx([['name'], ['Ada']]));
    const workbook = zip.file('xl/workbook.xml')!.asText();
    const bogusSheets = Array.from({ length: count }, (_, i) => `<sheet name="s${i}" sheetId="${i + 2}" state="hidden" r:id="none${i}"/>`).join('');
    zip.file('xl/workbook.xml', workbook.replace('<sheets>', `<sheets>${bogusSheets}`));
    const relationships = zip.file('xl/_rels/workbook.xml.rels')!.asText();
    const bogusRelationships = Array.from({ length: count }, (_, i) => `<Relationship Id="other${i}" Type="x" Target="worksheets/none${i}.xml"/>`).join('');
    zip.file('xl/_rels/workbook.xml.rels', relationships.replace('</Relationships>', `${bogusRelationships}</Relationships>`));
    const started = process.hrtime.bigint();
    expect((await readSpreadsheet(zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' }), 'xlsx', 100)).rows).toEqual([{ rowNumber: 2, cells: ['Ada'] }]);
    // A lookup of each sheet's relationship among all of them: 2.5 × 10^9 tries, minutes.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(15_000);
  });

  it('reads the first sheet a person sees: the first tab that is not hidden, whatever order the sheets were created in', async () => {
    const workbook = new ExcelJS.Workbook();
    const hidden = workbook.addWorksheet('lookups', { state: 'hidden' });
    hidden.getRow(1).values = ['name'];
    hidden.getRow(2).values = ['from the hidden sheet'];
    const later = workbook.addWorksheet('older data');
    later.getRow(1).values = ['name'];
    later.getRow(2).values = ['from the second tab'];
    const data = workbook.addWorksheet('data');
    data.getRow(1).values = ['name'];
    data.getRow(2).values = ['from the first visible tab'];
    // Tabs moved: "data" before "older data", though created after it (its part is xl/worksheets/sheet3.xml). ExcelJS's types omit orderNo.
    const tabs = (sheet: ExcelJS.Worksheet, orderNo: number) => ((sheet as unknown as { orderNo: number }).orderNo = orderNo);
    tabs(hidden, 0);
    tabs(data, 1);
    tabs(later, 2);
    const file = Buffer.from(await workbook.xlsx.writeBuffer());
    expect(new PizZip(file).file('xl/workbook.xml')!.asText()).toMatch(/lookups.*hidden.*data.*older data/);
    expect((await readSpreadsheet(file, 'xlsx', 100)).rows).toEqual([{ rowNumber: 2, cells: ['from the first visible tab'] }]);

    // A chart as the first visible tab (ExcelJS reads no chartsheet), and a hidden state in single quotes.
    const zip = new PizZip(file);
    const chartTab = `<sheet name="chart" sheetId="9" r:id="rId99"/><sheet name="quoted" sheetId="8" state='hidden' r:id="rId98"/>`;
    zip.file('xl/workbook.xml', zip.file('xl/workbook.xml')!.asText().replace('<sheets>', `<sheets>${chartTab}`));
    const chartRelationships =
      '<Relationship Id="rId99" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chartsheet" Target="chartsheets/sheet1.xml"/>' +
      '<Relationship Id="rId98" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>';
    zip.file(
      'xl/_rels/workbook.xml.rels',
      zip.file('xl/_rels/workbook.xml.rels')!.asText().replace('</Relationships>', `${chartRelationships}</Relationships>`),
    );
    zip.file('xl/chartsheets/sheet1.xml', '<chartsheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>');
    const withChart = zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
    expect((await readSpreadsheet(withChart, 'xlsx', 100)).rows).toEqual([{ rowNumber: 2, cells: ['from the first visible tab'] }]);
  });

  it('refuses more rows than the limit before anything else happens', async () => {
    const body = ['name', ...Array.from({ length: 11 }, (_, i) => `row ${i}`)].join('\n');
    expect(await refusal(readSpreadsheet(csv(body), 'csv', 10))).toEqual({
      code: 'spreadsheet_invalid',
      message: 'The spreadsheet has 11 rows; at most 10 are accepted per bulk job',
    });
  });

  it('explains malformed files', async () => {
    expect(await refusal(readSpreadsheet(csv('name\n"unclosed\n'), 'csv', 10))).toMatchObject({
      code: 'spreadsheet_invalid',
      message: expect.stringMatching(/^The \.csv file could not be read: /),
    });
    expect(await refusal(readSpreadsheet(Buffer.from('PK\x03\x04 not really'), 'xlsx', 10))).toMatchObject({
      code: 'spreadsheet_invalid',
      message: expect.stringContaining('could not be read'),
    });
    const notAWorkbook = new PizZip();
    notAWorkbook.file('hello.txt', 'hi');
    expect(await refusal(readSpreadsheet(notAWorkbook.generate({ type: 'nodebuffer' }), 'xlsx', 10))).toMatchObject({ code: 'spreadsheet_invalid' });
  });

  it('refuses a zip bomb by its declared size', async () => {
    const bomb = new PizZip();
    bomb.file('xl/worksheets/sheet1.xml', Buffer.alloc(101 * 1024 * 1024, 0x20));
    const file = bomb.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
    expect(file.length).toBeLessThan(1024 * 1024);
    expect(await refusal(readSpreadsheet(file, 'xlsx', 10))).toEqual({
      code: 'body_too_large',
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
      code: 'body_too_large',
      message: 'The .xlsx expands to more than 100 MiB when unzipped; the limit is 100 MiB',
    });
  });

  it('reads only the entries the central directory lists, which are the ones checked (a hidden entry is never read)', async () => {
    const sheet = (rows: string[][]) =>
      `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows
        .map(
          (cells, r) =>
            `<row r="${r + 1}">${cells.map((v, c) => `<c r="${String.fromCharCode(65 + c)}${r + 1}" t="inlineStr"><is><t>${v}</t></is></c>`).join('')}</row>`,
        )
        .join('')}</sheetData></worksheet>`;
    const workbook = buildXlsx([['name'], ['Ada']]);
    // A second sheet1.xml before the real parts: a streaming reader took its rows for the workbook's.
    const hiddenSheet = withHiddenEntry(workbook, 'xl/worksheets/sheet1.xml', sheet([['name'], ['Mallory']]));
    expect((await readSpreadsheet(hiddenSheet, 'xlsx', 10)).rows).toEqual([{ rowNumber: 2, cells: ['Ada'] }]);

    // 60 MB of shared strings no check saw, in a 60 KB upload: never inflated.
    const strings = `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${'<si><t>x</t></si>'.repeat(3_500_000)}</sst>`;
    const hiddenBomb = withHiddenEntry(workbook, 'xl/sharedStrings.xml', strings);
    expect(hiddenBomb.length).toBeLessThan(1024 * 1024);
    const before = process.memoryUsage().rss;
    expect((await readSpreadsheet(hiddenBomb, 'xlsx', 10)).rows).toEqual([{ rowNumber: 2, cells: ['Ada'] }]);
    expect(process.memoryUsage().rss - before).toBeLessThan(40 * 1024 * 1024);
  });

  it('hands ExcelJS each checked part as the upload compressed it: nothing inflated twice, nothing compressed again', () => {
    const rows = [['name', 'note'], ...Array.from({ length: 500 }, (_, i) => [`name ${i}`, `note ${i} ${'y'.repeat(50)}`])];
    // Compressed at level 1: a part compressed again (at PizZip's level 6) would not keep its bytes.
    const source = new PizZip(buildXlsx(rows, { sharedStrings: true }));
    const fast = new PizZip();
    for (const name of Object.keys(source.files)) fast.file(name, source.files[name]!.asText());
    const uploaded = fast.generate({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 1 } });
    const compressed = (file: Buffer, name: string) =>
      Buffer.from((new PizZip(file).files[name] as unknown as { _data: { getCompressedContent: () => Uint8Array } })._data.getCompressedContent());

    const rebuilt = checkedWorkbook(uploaded);
    const parts = Object.keys(source.files).filter((name) => !name.endsWith('/'));
    expect(parts).toEqual(expect.arrayContaining(['xl/sharedStrings.xml', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels']));
    for (const name of parts) expect({ name, same: compressed(rebuilt, name).equals(compressed(uploaded, name)) }).toEqual({ name, same: true });
  });

  it('checks the header before reading any row', async () => {
    const body = ['nom', ...Array.from({ length: 50 }, (_, i) => `row ${i}`)].join('\n');
    const wrongHeader = () => {
      throw new BulkInputError('spreadsheet_invalid', 'Unknown column "nom"');
    };
    expect(await refusal(readSpreadsheet(csv(body), 'csv', 10, wrongHeader))).toEqual({ code: 'spreadsheet_invalid', message: 'Unknown column "nom"' });
    const workbook = await xlsx([['nom'], ...Array.from({ length: 50 }, (_, i) => [`row ${i}`])]);
    const seen: string[][] = [];
    await readSpreadsheet(workbook, 'xlsx', 100, (header) => void seen.push(header));
    expect(seen).toEqual([['nom']]);
    expect(await refusal(readSpreadsheet(workbook, 'xlsx', 10, wrongHeader))).toEqual({ code: 'spreadsheet_invalid', message: 'Unknown column "nom"' });
  });

  it('explains a missing header, a blank header cell, values outside the header and no data', async () => {
    expect(await refusal(readSpreadsheet(csv('\nAda\n'), 'csv', 10))).toEqual({
      code: 'spreadsheet_invalid',
      message: 'The first row must hold the token names; it is empty',
    });
    expect(await refusal(readSpreadsheet(csv('name,,total\nAda,,1\n'), 'csv', 10))).toEqual({
      code: 'spreadsheet_invalid',
      message: 'Column 2 of the first row has no token name',
    });
    expect(await refusal(readSpreadsheet(csv('name\nAda,extra\n'), 'csv', 10))).toEqual({
      code: 'spreadsheet_invalid',
      message: 'Row 2 has values in columns without a token name in the first row',
    });
    expect(await refusal(readSpreadsheet(csv('name\n\n'), 'csv', 10))).toEqual({
      code: 'spreadsheet_invalid',
      message: 'The spreadsheet has no rows below the header',
    });
  });

  it("refuses rows whose numbers (the file's r) are missing, repeated, out of order or past the grid, naming the row", async () => {
    const rows = [['name'], ['Ada'], ['Bob']];
    const resave = 'save the file again from your spreadsheet program as Excel Workbook (.xlsx)';
    expect((await readSpreadsheet(buildXlsx(rows, { rowNumbers: [1, 2, 5] }), 'xlsx', 10)).rows.map((row) => row.rowNumber)).toEqual([2, 5]);
    for (const [rowNumbers, message] of [
      [[1, 2, 2], `Row 2 comes after row 2: the rows are out of order or repeated; ${resave}`],
      [[1, 3, 2], `Row 2 comes after row 3: the rows are out of order or repeated; ${resave}`],
      [[1, 2, 3_000_000_000], `Row 3000000000 is past row 1048576, the last row a spreadsheet has; ${resave}`],
    ] as const) {
      expect(await refusal(readSpreadsheet(buildXlsx(rows, { rowNumbers: [...rowNumbers] }), 'xlsx', 10))).toEqual({ code: 'spreadsheet_invalid', message });
    }
    // A row without r (ExcelJS cannot place the cells of one: "could not be read").
    expect(await refusal(readSpreadsheet(buildXlsx([['name'], ['Ada'], []], { rowNumbers: [1, 2, null] }), 'xlsx', 10))).toEqual({
      code: 'spreadsheet_invalid',
      message: `The row after row 2 has no row number; ${resave}`,
    });
  });

  it('leaves no ExcelJS temp file behind, whether the sheet comes before the shared strings or there are none, on a read or a refusal', async () => {
    // ExcelJS's reader makes them with the tmp package: tmp-<pid>-<random> in os.tmpdir().
    const ownTempFiles = async () => new Set((await readdir(tmpdir())).filter((name) => name.startsWith(`tmp-${process.pid}-`)));
    const before = await ownTempFiles();
    // As Excel writes them: the sheets, then the shared strings.
    const sheetFirst = await xlsx([['name'], ['Ada']]);
    expect(sheetFirst.indexOf('xl/worksheets/sheet1.xml')).toBeLessThan(sheetFirst.indexOf('xl/sharedStrings.xml'));
    const noSharedStrings = buildXlsx([['name'], ['Ada']]);
    expect(noSharedStrings.includes('sharedStrings')).toBe(false);
    const wrongHeader = () => {
      throw new BulkInputError('spreadsheet_invalid', 'Unknown column "name"');
    };
    for (const file of [sheetFirst, noSharedStrings]) {
      expect((await readSpreadsheet(file, 'xlsx', 10)).rows).toEqual([{ rowNumber: 2, cells: ['Ada'] }]);
      expect(await refusal(readSpreadsheet(file, 'xlsx', 10, wrongHeader))).toEqual({ code: 'spreadsheet_invalid', message: 'Unknown column "name"' });
    }
    expect([...(await ownTempFiles())].filter((name) => !before.has(name))).toEqual([]);
  });
});
