export { BulkInputError } from './bulk-input-error';
export { checkedWorkbook, readSpreadsheet, type Sheet, type SheetRow, type CellValue, type SpreadsheetFormat } from './read-spreadsheet';
export { rowsToInputs, checkHeader, type RowInput } from './rows-to-inputs';
export { buildErrorsWorkbook, inertCell } from './errors-report';
export { streamZip, rowFileName, type ZipEntry } from './bulk-zip';
export { fileNamer, fileNameProblem, fileNameTags } from './file-names';
