/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use (below) */
import type ExcelJS from 'exceljs';

let excelJs: typeof ExcelJS | undefined;

/**
 * ExcelJS, loaded on the first spreadsheet read or written, not when a gateway, an
 * upload-check thread or a render worker starts: about 28 MB and a quarter of a second that
 * each paid at start for bulk jobs only some of them see (docs/BENCHMARKS.md). The same
 * spelling as @docgen/templating's HTML libraries (html-libraries.ts).
 */
export const excelJsLibrary = (): typeof ExcelJS => (excelJs ??= require('exceljs') as typeof ExcelJS);
