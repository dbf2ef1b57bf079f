import { directFields, type NumberFormat, type TemplateVariable, type VariableFormat, type VariableType } from '../variables';
import { formatDate, parseIsoDate } from './format-date';
import { formatNumber } from './format-number';
import { checkInput } from './input-schema';
import { withRawValues } from '../expressions/raw-values';

const DEFAULT_DATE_FORMAT = 'YYYY-MM-DD';
export const DEFAULT_LOCALE = 'en-US';

/** A checked value as docxtemplater renders it: dates and numbers written out in the locale. */
function renderValue(
  value: unknown,
  type: VariableType,
  format: VariableFormat | undefined,
  variable: TemplateVariable,
  prefix: string,
  locale: string,
): unknown {
  if (value === undefined || value === null) return type === 'list' ? [] : type === 'boolean' ? false : '';
  switch (type) {
    case 'text':
      return typeof value === 'number' ? String(value) : value;
    case 'date':
      return formatDate(parseIsoDate(value)!, typeof format === 'string' ? format : DEFAULT_DATE_FORMAT, locale);
    case 'number':
      return formatNumber(Number(value), typeof format === 'object' ? (format as NumberFormat) : undefined, locale);
    case 'list':
      // A field absent from an item is read from an enclosing scope (the schema allowed it).
      return (value as Record<string, unknown>[]).map((item) => typedMembers(item, variable, prefix, locale));
    case 'object':
      return typedMembers(value as Record<string, unknown>, variable, prefix, locale);
    default:
      return value;
  }
}

/** A list item or an object with its described fields written out; other members kept as given. */
function typedMembers(value: Record<string, unknown>, variable: TemplateVariable, prefix: string, locale: string): Record<string, unknown> {
  const typed: Record<string, unknown> = withRawValues({ ...value }, value);
  for (const [field, fieldType] of directFields(variable, prefix)) {
    const key = field.slice(prefix.length);
    if (value[key] === undefined) continue;
    typed[key] = renderValue(value[key], fieldType, variable.field_formats?.[field], variable, `${field}.`, locale);
  }
  return typed;
}

/**
 * Checks `input_json` against the template's schema (the first problem is thrown as a
 * RenderInputError naming the token and row) and returns the data docxtemplater renders.
 */
export function prepareRenderData(variables: TemplateVariable[], input: Record<string, unknown>, locale = DEFAULT_LOCALE): Record<string, unknown> {
  checkInput(variables, input);
  const data: Record<string, unknown> = withRawValues({ ...input }, input);
  for (const variable of variables) data[variable.name] = renderValue(input[variable.name], variable.type, variable.format, variable, '', locale);
  return data;
}
