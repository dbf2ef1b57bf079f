import type { Variable, VariableType } from '../../../lib/api-types';

export type Input = Record<string, unknown>;

function sampleValue(type: VariableType | undefined): unknown {
  switch (type) {
    case 'date':
      return new Date().toISOString().slice(0, 10);
    case 'number':
      return 0;
    case 'boolean':
      return false;
    default:
      return '';
  }
}

/** Every variable with a value of its type; a list gets one sample row. */
export function sampleInput(variables: Variable[]): Input {
  const input: Input = {};
  for (const variable of variables) {
    input[variable.name] = variable.type === 'list' ? [sampleRow(variable)] : variable.type === 'object' ? sampleObject(variable) : sampleValue(variable.type);
  }
  return input;
}

export function sampleRow(variable: Variable): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const field of variable.fields ?? []) row[field] = sampleValue(variable.field_types?.[field]);
  return row;
}

/** An object variable's described members, nested as the input holds them. */
export function sampleObject(variable: Variable, prefix = ''): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const field of variable.fields ?? []) {
    const key = field.slice(prefix.length);
    if (!field.startsWith(prefix) || key.includes('.')) continue;
    const type = variable.field_types?.[field];
    object[key] = type === 'object' ? sampleObject(variable, `${field}.`) : type === 'list' ? [] : sampleValue(type);
  }
  return object;
}

/** The object with the value at `path` (["address", "city"]) replaced, the rest kept. */
export function withMember(object: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const [key, ...rest] = path as [string, ...string[]];
  const inner = object[key];
  const child = inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {};
  return { ...object, [key]: rest.length === 0 ? value : withMember(child, rest, value) };
}

/** The form leaves optional fields blank; blank optional values are left out of the request. */
export function withoutBlankOptionals(input: Input, variables: Variable[]): Input {
  const out: Input = { ...input };
  for (const variable of variables) {
    if (!variable.required && (out[variable.name] === '' || out[variable.name] === undefined)) delete out[variable.name];
  }
  return out;
}
