import { unstorableJson } from '@docgen/contracts';
import { correctedName, type TemplateVariable } from '@docgen/templating';
import { BulkInputError } from './bulk-input-error';
import { MAX_BULK_INPUT_BYTES } from './limits';
import type { Sheet } from './read-spreadsheet';

export interface RowInput {
  rowNumber: number;
  input: Record<string, unknown>;
}

/**
 * Matches the header to the template's tokens (corrected like template tokens: "client
 * name" is client_name) and turns each row into an input_json. A list token's cell holds
 * a JSON array, an object token's a JSON object; a cell that is not valid JSON is passed on as text, so the row fails with
 * the message a single document would get. A row's input may be as large as a document's
 * (`maxRowBytes`, the JSON body limit), the rows' together MAX_BULK_INPUT_BYTES.
 */
export function rowsToInputs(sheet: Sheet, variables: TemplateVariable[], maxRowBytes: number): RowInput[] {
  const names = checkHeader(sheet.header, variables);
  const types = new Map(variables.map((v) => [v.name, v.type]));
  let totalBytes = 0;
  return sheet.rows.map(({ rowNumber, cells }) => {
    const input: Record<string, unknown> = {};
    names.forEach((name, column) => {
      const cell = cells[column];
      if (cell === undefined || (typeof cell === 'string' && cell === '')) return;
      input[name] = typeof cell === 'string' ? fromText(cell, types.get(name)) : cell;
    });
    const unstorable = unstorableJson(input);
    if (unstorable) throw new BulkInputError('spreadsheet_invalid', `Row ${rowNumber}, column "${unstorable.path[0]}" ${unstorable.message} and upload again`);
    // After the depth check, which keeps JSON.stringify within the stack.
    const bytes = Buffer.byteLength(JSON.stringify(input));
    if (bytes > maxRowBytes) {
      throw new BulkInputError(
        'body_too_large',
        `Row ${rowNumber} holds ${size(bytes)} of input (as JSON); a document's input may be at most ${size(maxRowBytes)}: shorten its cells and upload again`,
      );
    }
    totalBytes += bytes;
    if (totalBytes > MAX_BULK_INPUT_BYTES) {
      throw new BulkInputError(
        'body_too_large',
        `The rows up to row ${rowNumber} hold more than ${size(MAX_BULK_INPUT_BYTES)} of input (as JSON), the most one bulk job may hold; split the spreadsheet into smaller files and upload them again`,
      );
    }
    return { rowNumber, input };
  });
}

/**
 * The header's token names, or a BulkInputError saying which column is wrong. Cheap, so
 * readSpreadsheet runs it as soon as the header is read, before any data row.
 */
export function checkHeader(header: string[], variables: TemplateVariable[]): string[] {
  const names = header.map(correctedName);
  const known = new Set(variables.map((v) => v.name));
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate) throw new BulkInputError('spreadsheet_invalid', `The token "${duplicate}" has two columns`);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new BulkInputError(
      'spreadsheet_invalid',
      `Unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; the template's tokens are ${[...known].join(', ')}`,
    );
  }
  const missing = variables.filter((v) => v.required && !names.includes(v.name)).map((v) => v.name);
  if (missing.length > 0)
    throw new BulkInputError(
      'spreadsheet_invalid',
      `Missing column${missing.length > 1 ? 's' : ''} for required token${missing.length > 1 ? 's' : ''} ${missing.map((n) => `"${n}"`).join(', ')}`,
    );
  return names;
}

/** A list or object cell holds JSON; a boolean cell TRUE or FALSE (any case), as spreadsheets write them. */
function fromText(cell: string, type: TemplateVariable['type'] | undefined): unknown {
  if (type === 'list' || type === 'object') return parseJson(cell);
  if (type === 'boolean' && /^(true|false)$/i.test(cell.trim())) return cell.trim().toLowerCase() === 'true';
  return cell;
}

function parseJson(cell: string): unknown {
  try {
    return JSON.parse(cell);
  } catch {
    return cell;
  }
}

function size(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / 1024 / 1024).toFixed(1))} MiB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}
