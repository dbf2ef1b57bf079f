import type { Variable } from '../../../lib/api-types';

/** A cell no spreadsheet evaluates: text starting like a formula gets a leading apostrophe. */
function csvCell(text: string): string {
  const value = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** A CSV whose one row is the template's tokens: each later row a person adds is one document. */
export function sampleSpreadsheet(variables: Variable[]): string {
  return `${variables.map((v) => csvCell(v.name)).join(',')}\r\n`;
}
