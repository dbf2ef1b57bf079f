import type { Variable, VariableType } from '../../../lib/api-types';

export type NumberFormat = { style: 'decimal' | 'currency' | 'percent'; currency?: string; minimum_fraction_digits?: number; maximum_fraction_digits?: number };
export type VariableFormat = string | NumberFormat;

/**
 * The types a tag may take, as the server allows them (templating's `switchableTypes` and the
 * gateway's `allowedTypes`): a plain tag is text, date or number; a section with nothing
 * inside is a list or a boolean; a loop with fields stays a list; an image stays an image.
 */
export function allowedTypes(type: VariableType, hasFields: boolean): VariableType[] {
  if (type === 'text' || type === 'date' || type === 'number') return ['text', 'date', 'number'];
  if (type === 'boolean' || (type === 'list' && !hasFields)) return ['list', 'boolean'];
  return [type];
}

export const TYPE_LABELS: Record<VariableType, string> = {
  text: 'Text',
  date: 'Date',
  number: 'Number',
  boolean: 'Boolean',
  list: 'List',
  image: 'Image',
  object: 'Object',
};

/** One row of the variables table: a variable, or a field of a list or object ("items.price", "client.address.city"). */
export interface VariableRow {
  /** The name PATCH .../variables takes: "due" or "items.price". */
  name: string;
  type: VariableType;
  hasFields: boolean;
  format?: VariableFormat;
  /** A list's or object's field: always required, so no checkbox. */
  isField: boolean;
}

export function variableRows(variable: Variable): VariableRow[] {
  const fields = variable.fields ?? [];
  const own: VariableRow = { name: variable.name, type: variable.type, hasFields: fields.length > 0, format: variable.format, isField: false };
  if (variable.type !== 'list' && variable.type !== 'object') return [own];
  const fieldFormats = (variable as { field_formats?: Record<string, VariableFormat> }).field_formats ?? {};
  return [
    own,
    ...fields.map((field) => {
      const hasFields = fields.some((other) => other.startsWith(`${field}.`));
      return {
        name: `${variable.name}.${field}`,
        type: variable.field_types?.[field] ?? (hasFields ? (variable.type === 'object' ? 'object' : 'list') : 'text'),
        hasFields,
        format: fieldFormats[field],
        isField: true,
      } satisfies VariableRow;
    }),
  ];
}

const SAMPLE_DATE = new Date(Date.UTC(2026, 11, 24));

/** "24 December 2026" for "D MMMM YYYY": the renderer's date tokens, written in the locale. */
export function formatSampleDate(format: string, locale: string): string {
  const part = (options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' }).format(SAMPLE_DATE);
  const tokens: Record<string, () => string> = {
    YYYY: () => '2026',
    YY: () => '26',
    MMMM: () => part({ month: 'long' }),
    MMM: () => part({ month: 'short' }),
    MM: () => '12',
    M: () => '12',
    DD: () => '24',
    D: () => '24',
    dddd: () => part({ weekday: 'long' }),
    ddd: () => part({ weekday: 'short' }),
  };
  return format.replace(/\[([^\]]*)\]|YYYY|YY|MMMM|MMM|MM|M|DD|D|dddd|ddd/g, (match, literal: string | undefined) =>
    literal !== undefined ? literal : (tokens[match]?.() ?? match),
  );
}

/** 1234.5 written the way the renderer will write it (Intl.NumberFormat in the locale). */
export function formatSampleNumber(format: NumberFormat | undefined, locale: string): string {
  try {
    return new Intl.NumberFormat(locale, {
      style: format?.style ?? 'decimal',
      currency: format?.currency,
      minimumFractionDigits: format?.minimum_fraction_digits,
      maximumFractionDigits: format?.maximum_fraction_digits,
    }).format(format?.style === 'percent' ? 0.125 : 1234.5);
  } catch {
    return '';
  }
}

/** The format in words, for the table: "DD/MM/YYYY (24/12/2026)", "Currency EUR, 2 decimals (1.234,50 €)". */
export function describeFormat(row: VariableRow, locale: string): string {
  if (row.type === 'date') {
    const format = typeof row.format === 'string' ? row.format : 'YYYY-MM-DD';
    return `${format} (${formatSampleDate(format, locale)})`;
  }
  if (row.type === 'number') {
    const format = typeof row.format === 'object' ? row.format : undefined;
    const style = format?.style ?? 'decimal';
    const words = [style === 'currency' ? `Currency ${format?.currency ?? ''}`.trim() : style === 'percent' ? 'Percent' : 'Decimal'];
    const digits = format?.maximum_fraction_digits ?? format?.minimum_fraction_digits;
    if (digits !== undefined) words.push(`${digits} decimal${digits === 1 ? '' : 's'}`);
    return `${words.join(', ')} (${formatSampleNumber(format, locale)})`;
  }
  return '';
}
