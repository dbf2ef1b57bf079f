import PizZip from 'pizzip';

/** The smallest workbook ExcelJS reads: one sheet of inline strings, row 1 first. */
export function buildXlsx(rows: string[][]): Buffer {
  const zip = new PizZip();
  const cell = (value: string, column: number, row: number) =>
    `<c r="${String.fromCharCode(65 + column)}${row}" t="inlineStr"><is><t>${value.replaceAll('&', '&amp;').replaceAll('<', '&lt;')}</t></is></c>`;
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
  );
  zip.file(
    'xl/workbook.xml',
    '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
  );
  zip.file(
    'xl/_rels/workbook.xml.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
  );
  zip.file(
    'xl/worksheets/sheet1.xml',
    `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows.map((cells, r) => `<row r="${r + 1}">${cells.map((v, c) => cell(v, c, r + 1)).join('')}</row>`).join('')}</sheetData></worksheet>`,
  );
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/**
 * The archive with one more entry in front of its own, which the central directory does not
 * list (its offsets are moved past it): a reader that walks local headers in file order, as
 * ExcelJS's streaming reader does, meets it first; one that reads the directory never sees it.
 */
export function withHiddenEntry(archive: Buffer, name: string, content: string | Buffer): Buffer {
  const single = new PizZip();
  single.file(name, content);
  const alone = single.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
  const hidden = alone.subarray(0, alone.readUInt32LE(alone.length - 22 + 16)); // up to its central directory
  const file = Buffer.concat([hidden, archive]);
  const endOfDirectory = file.length - 22;
  const directoryAt = file.readUInt32LE(endOfDirectory + 16) + hidden.length;
  file.writeUInt32LE(directoryAt, endOfDirectory + 16);
  for (let at = directoryAt; at < endOfDirectory;) {
    file.writeUInt32LE(file.readUInt32LE(at + 42) + hidden.length, at + 42);
    at += 46 + file.readUInt16LE(at + 28) + file.readUInt16LE(at + 30) + file.readUInt16LE(at + 32);
  }
  return file;
}
