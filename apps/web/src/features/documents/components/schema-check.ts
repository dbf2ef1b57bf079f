import { Validator, type OutputUnit } from '@cfworker/json-schema';
import type { JsonSchema } from '../../../lib/api-types';

export interface InputProblem {
  path: string;
  message: string;
}

function readablePath(instanceLocation: string): string {
  const parts = instanceLocation.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return 'input';
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

/** Only the innermost problems: "items[0].price must be a number", not also "items is invalid". */
function leaves(errors: OutputUnit[]): OutputUnit[] {
  return errors.filter(
    (error) =>
      !errors.some((other) => other !== error && other.instanceLocation.startsWith(`${error.instanceLocation}/`)) &&
      !['properties', 'items', 'prefixItems', 'allOf', '$ref', 'anyOf', 'oneOf'].includes(error.keyword),
  );
}

/** Parses the text and checks it against the template's schema, without eval (the CSP forbids it). */
export function checkInput(text: string, schema: JsonSchema | undefined): { value?: unknown; problems: InputProblem[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problems: [{ path: 'input', message: `Not valid JSON: ${(error as Error).message}` }] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { value, problems: [{ path: 'input', message: 'The input must be a JSON object, such as {"client_name": "Ada"}' }] };
  }
  if (!schema) return { value, problems: [] };
  const result = new Validator(schema as never, '2020-12', false).validate(value);
  if (result.valid) return { value, problems: [] };
  const found = leaves(result.errors);
  const unique = new Map<string, InputProblem>();
  for (const error of found.length ? found : result.errors) {
    const path = readablePath(error.instanceLocation);
    unique.set(`${path}|${error.error}`, { path, message: `${path}: ${error.error}` });
  }
  return { value, problems: [...unique.values()] };
}
