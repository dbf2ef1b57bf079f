import type { Variable } from '../../../lib/types';

function csvCell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** A CSV whose one row is the template's tokens: each later row a person adds is one document. */
export function sampleSpreadsheet(variables: Variable[]): string {
  return `${variables.map((v) => csvCell(v.name)).join(',')}\r\n`;
}
