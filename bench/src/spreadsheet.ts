import PizZip from 'pizzip';
import { checkedWorkbook } from '@docgen/bulk';
import { zipExpandsWithin } from '@docgen/templating';
import { buildXlsx } from '@docgen/testing';
import { runWhenMain, publish, type BenchOptions } from './report';
import { fixed, markdownTable, pairedCpuMs, ratio } from './stats';

/** The parts checkedWorkbook reads for itself (styles, shared strings, workbook, its relationships). */
const PARTS_READ = ['xl/styles.xml', 'xl/sharedStrings.xml', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels'];

/**
 * What the release before 3 December 2026 did on top of today's checks: every entry inflated
 * once more for the size limit alone, and each part the checks read inflated a second time
 * by PizZip in JavaScript, and therefore compressed again when the archive is written out for
 * ExcelJS.
 */
function readAgainAsBefore(file: Buffer): void {
  const zip = new PizZip(file);
  zipExpandsWithin(zip, 100 * 1024 * 1024);
  for (const part of PARTS_READ) zip.files[part]?.asText();
  zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/**
 * The checks every uploaded workbook goes through before ExcelJS reads a row (checkedWorkbook
 * in @docgen/bulk: central directory, sizes and CRCs, number formats, phonetic readings, the
 * first visible sheet), in CPU ms per upload, against the same with the second reading of its
 * parts the previous release did.
 */
export async function runSpreadsheetBench(options: BenchOptions) {
  const blocks = options.smoke ? 2 : 9;
  const perBlock = options.smoke ? 2 : 10;
  const results: Record<string, { baseline: number; measured: number }> = {};
  const rows: (string | number)[][] = [];
  for (const count of options.smoke ? [200] : [1_000, 10_000]) {
    const sheet = [
      ['name', 'city', 'note'],
      ...Array.from({ length: count }, (_, i) => [`name ${i} ${'x'.repeat(40)}`, `city ${i % 500}`, `note ${i} ${'y'.repeat(200)}`]),
    ];
    const file = buildXlsx(sheet, { sharedStrings: true });
    const result = pairedCpuMs(
      blocks,
      perBlock,
      () => {
        checkedWorkbook(file);
        readAgainAsBefore(file);
      },
      () => void checkedWorkbook(file),
    );
    results[`rows@${count}`] = result;
    rows.push([
      `${count.toLocaleString('en-US')} rows (${fixed(file.length / 1024, 0)} KiB)`,
      fixed(result.baseline, 1),
      fixed(result.measured, 1),
      ratio(result.measured, result.baseline),
    ]);
    options.log(`${count} rows: ${fixed(result.baseline, 1)} → ${fixed(result.measured, 1)} ms`);
  }
  const body = [
    'CPU milliseconds per uploaded workbook (three text columns, every cell a shared string) for',
    'the checks before ExcelJS reads a row (`checkedWorkbook`), against the same plus what the',
    'previous release did besides: every entry inflated once more for the size limit alone, and',
    'styles, shared strings and workbook parts inflated again by PizZip in JavaScript, then',
    'compressed again for ExcelJS.',
    `${blocks} rotating blocks of ${perBlock}; the median block.`,
    '',
    markdownTable(['workbook', 'checks as before ms', 'checks now ms', 'ratio'], rows),
  ].join('\n');
  publish(options, 'spreadsheet', 'Spreadsheet uploads: the checks before the first row', body);
  return results;
}

runWhenMain(module, runSpreadsheetBench);
