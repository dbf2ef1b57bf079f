import PizZip from 'pizzip';

export interface XlsxOptions {
  /** Each row's `r` as the file states it (null: no `r`); by default 1, 2, 3, … */
  rowNumbers?: (number | null)[];
  /** Text in xl/sharedStrings.xml, each distinct text once, after the sheet (as Excel writes it); else inline. */
  sharedStrings?: boolean;
}

const escapeXml = (value: string) => value.replaceAll('&', '&amp;').replaceAll('<', '&lt;');

/** The smallest workbook ExcelJS reads: one sheet, row 1 first; inline strings unless `sharedStrings`. */
export function buildXlsx(rows: string[][], { rowNumbers = rows.map((_, index) => index + 1), sharedStrings = false }: XlsxOptions = {}): Buffer {
  const zip = new PizZip();
  const strings = new Map<string, number>();
  const cell = (value: string, column: number, row: number) => {
    const ref = `${String.fromCharCode(65 + column)}${row}`;
    if (!sharedStrings) return `<c r="${ref}" t="inlineStr"><is><t>${escapeXml(value)}</t></is></c>`;
    if (!strings.has(value)) strings.set(value, strings.size);
    return `<c r="${ref}" t="s"><v>${strings.get(value)}</v></c>`;
  };
  const row = (cells: string[], index: number) => {
    const number = rowNumbers[index];
    return `<row${number === null ? '' : ` r="${number}"`}>${cells.map((v, c) => cell(v, c, number ?? index + 1)).join('')}</row>`;
  };
  const sharedStringsType = sharedStrings
    ? '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
    : '';
  const sharedStringsRelationship = sharedStrings
    ? '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
    : '';
  zip.file(
    '[Content_Types].xml',
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>${sharedStringsType}</Types>`,
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
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>${sharedStringsRelationship}</Relationships>`,
  );
  zip.file(
    'xl/worksheets/sheet1.xml',
    `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows.map(row).join('')}</sheetData></worksheet>`,
  );
  if (sharedStrings) {
    zip.file(
      'xl/sharedStrings.xml',
      `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" uniqueCount="${strings.size}">${[...strings.keys()].map((text) => `<si><t>${escapeXml(text)}</t></si>`).join('')}</sst>`,
    );
  }
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
