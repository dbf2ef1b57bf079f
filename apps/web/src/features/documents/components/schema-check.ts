import { Validator, type OutputUnit } from '@cfworker/json-schema';
import type { JsonSchema } from '../../../lib/api-types';

export interface InputProblem {
  /** Where: "client_name", "items[0].price" ("input" for the whole). */
  path: string;
  /** For a list of problems: the path and what to do, "due: Enter a date like 2026-12-24". */
  message: string;
  /** For the field itself (its accessible description): "Enter a date like 2026-12-24". */
  fieldMessage: string;
}

type Schema = Record<string, unknown>;
type Kind = 'text' | 'date' | 'number' | 'boolean' | 'list' | 'image';

/** What a value of this (sub)schema is, as the template's variable types say (see templating's input-schema). */
function kindOf(schema: Schema | undefined): Kind | undefined {
  if (!schema) return undefined;
  if (schema.format === 'date') return 'date';
  if (schema.format === 'uri') return 'image';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'array') return 'list';
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(branches)) return branches.some((branch) => typeof branch.pattern === 'string') ? 'number' : 'text';
  if (schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'))) return 'text';
  return undefined;
}

/** Plain words: what to enter, not what the validator found. */
const ASK: Record<Kind, string> = {
  text: 'Enter text or a number',
  date: 'Enter a date like 2026-12-24',
  number: 'Enter a number like 1234.50',
  boolean: 'Choose true or false',
  list: 'Enter a list of rows, like [{"name": "…"}]',
  image: 'Enter an image address starting with https:// or a data: URI',
};
const REQUIRED = 'Required: enter a value';

function readablePath(instanceLocation: string): string {
  const parts = instanceLocation.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return 'input';
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

const childPath = (parent: string, key: string) => (parent === 'input' ? key : `${parent}.${key}`);

/** The subschema a JSON pointer into the schema names ("#/properties/items/items"). */
function schemaAt(root: Schema, pointer: string): Schema | undefined {
  let node: unknown = root;
  for (const part of pointer.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'object' && node !== null ? (node as Schema) : undefined;
}

/** The schema of the value an error is about: the pointer up to its last "properties/<name>" or "items". */
function valueSchemaOf(root: Schema, keywordLocation: string): Schema | undefined {
  const parts = keywordLocation.replace(/^#\/?/, '').split('/');
  for (let end = parts.length; end > 0; end--) {
    const before = parts[end - 2];
    if (before === 'properties' || parts[end - 1] === 'items') return schemaAt(root, `#/${parts.slice(0, end).join('/')}`);
  }
  return root;
}

/** Only the innermost problems: "items[0].price", not also "items is invalid". */
function leaves(errors: OutputUnit[]): OutputUnit[] {
  return errors.filter(
    (error) =>
      !errors.some((other) => other !== error && other.instanceLocation.startsWith(`${error.instanceLocation}/`)) &&
      !['properties', 'items', 'prefixItems', 'allOf', '$ref', 'anyOf', 'oneOf'].includes(error.keyword),
  );
}

function describe(root: Schema, error: OutputUnit): { path: string; fieldMessage: string } {
  const at = readablePath(error.instanceLocation);
  const named = /"([^"]+)"/.exec(error.error)?.[1];
  if (error.keyword === 'required' && named) {
    const parent = schemaAt(root, error.keywordLocation.replace(/\/required$/, ''));
    const kind = kindOf((parent?.properties as Record<string, Schema> | undefined)?.[named]);
    return { path: childPath(at, named), fieldMessage: kind && kind !== 'text' ? ASK[kind] : REQUIRED };
  }
  if ((error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') && named) {
    return { path: childPath(at, named), fieldMessage: 'Not a variable of this template: remove it' };
  }
  const kind = kindOf(valueSchemaOf(root, error.keywordLocation));
  return { path: at, fieldMessage: kind ? ASK[kind] : error.error };
}

/**
 * A required text left blank passes the schema ("" is a string) but prints nothing: refused
 * here. Walks the value beside the schema: required properties, and list rows' fields.
 */
function blankRequiredTexts(schema: Schema, value: unknown, path: string, found: Map<string, InputProblem>): void {
  if (Array.isArray(value) && schema.items) {
    value.forEach((row, index) => blankRequiredTexts(schema.items as Schema, row, `${path}[${index}]`, found));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  for (const [key, property] of Object.entries(properties)) {
    const inner = (value as Record<string, unknown>)[key];
    const at = childPath(path, key);
    if (required.has(key) && kindOf(property) === 'text' && typeof inner === 'string' && inner.trim() === '' && !found.has(at)) {
      found.set(at, { path: at, message: `${at}: ${REQUIRED}`, fieldMessage: REQUIRED });
    }
    blankRequiredTexts(property, inner, at, found);
  }
}

/** Parses the text and checks it against the template's schema, without eval (the CSP forbids it); every problem, in plain words. */
export function checkInput(text: string, schema: JsonSchema | undefined): { value?: unknown; problems: InputProblem[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = `Not valid JSON: ${(error as Error).message}`;
    return { problems: [{ path: 'input', message, fieldMessage: message }] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const message = 'The input must be a JSON object, such as {"client_name": "Ada"}';
    return { value, problems: [{ path: 'input', message, fieldMessage: message }] };
  }
  if (!schema) return { value, problems: [] };
  const root = schema as Schema;
  const found = new Map<string, InputProblem>();
  const result = new Validator(schema as never, '2020-12', false).validate(value);
  if (!result.valid) {
    const innermost = leaves(result.errors);
    for (const error of innermost.length ? innermost : result.errors) {
      const { path, fieldMessage } = describe(root, error);
      if (!found.has(path)) found.set(path, { path, message: `${path}: ${fieldMessage}`, fieldMessage });
    }
  }
  blankRequiredTexts(root, value, 'input', found);
  return { value, problems: [...found.values()] };
}

/** The API's `errors` of a failed document (§9), "input_json.items[2].price", as problems of the form's fields. */
export function serverProblems(errors: { path: string; message: string }[] | undefined): InputProblem[] {
  return (errors ?? []).map((error) => {
    const path = error.path.replace(/^input_json\.?/, '') || 'input';
    return { path, message: error.message, fieldMessage: error.message };
  });
}
