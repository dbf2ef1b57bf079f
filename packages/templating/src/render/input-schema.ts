import { z } from 'zod';
import { directFields, type TemplateVariable, type VariableType } from '../variables';
import { parseIsoDate } from './format-date';
import { RenderInputError } from './render-error';

/**
 * The one check `input_json` meets: built from the template's variables as a zod schema,
 * served as JSON Schema by GET /templates/{id}/schema and run by the render worker before
 * anything is fetched or filled. Messages name the token and, inside loops, the item.
 */

const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
/** A number written as text: digits, an optional sign and decimal point, nothing else. */
export const NUMERIC_STRING = /^-?\d+(\.\d+)?$/;
/** http://, https:// or data: in any letter case (no regex flags: JSON Schema patterns have none). */
const IMAGE_SOURCE = /^([hH][tT][tT][pP][sS]?:\/\/|[dD][aA][tT][aA]:)/;

type Path = readonly PropertyKey[];

/**
 * A value's place in the input: its name (with the members that lead to it, `client.address`)
 * and the list items around it.
 */
function placeOf(path: Path): { name: string; rows: string[] } {
  const rows: string[] = [];
  let names: string[] = [];
  for (const part of path) {
    if (typeof part === 'number') {
      rows.unshift(`item ${part + 1} of "${names.join('.')}"`);
      names = [];
    } else names.push(String(part));
  }
  return { name: names.join('.'), rows };
}

const nameOf = (path: Path) => placeOf(path).name;
const inRow = (path: Path) => {
  const { rows } = placeOf(path);
  return rows.length > 0 ? ` in ${rows.join(' in ')}` : '';
};
const subject = (path: Path) => `Token "${nameOf(path)}"${inRow(path)}`;
/** `Image "photo" in item 3 of "items"`, `Image "client.logo"`. */
export const imageLabel = (path: Path) => `Image "${nameOf(path)}"${inRow(path)}`;

const PROBLEM: Record<VariableType, (path: Path) => string> = {
  text: (path) => `${subject(path)} must be text or a number`,
  date: (path) => `${subject(path)} must be a date like 2026-11-22`,
  number: (path) => `${subject(path)} must be a number (or a numeric string like "1234.50")`,
  boolean: (path) => `${subject(path)} must be true or false`,
  list: (path) => `${subject(path)} must be a list of objects`,
  object: (path) => `${subject(path)} must be an object`,
  image: (path) => `${imageLabel(path)} must be an http(s):// URL or a data: URI`,
};

const missing = (path: Path) => (inRow(path) === '' ? `Missing required token "${nameOf(path)}"` : `Missing value for "${nameOf(path)}"${inRow(path)}`);

/** Every issue of one value gets the same message: missing, or of the wrong kind. */
const messageFor = (type: VariableType) => (issue: { input?: unknown; path?: PropertyKey[] }) => {
  const path = issue.path ?? [];
  return issue.input === undefined || issue.input === null ? missing(path) : PROBLEM[type](path);
};

/**
 * `outer` holds the names an enclosing scope gives a value (top-level variables, fields of
 * enclosing loops): docxtemplater reads `{currency}` inside `{#items}` from the top level
 * when an item has none, so there such a field may be left out of an item.
 */
function valueSchema(type: VariableType, variable: TemplateVariable, prefix: string, outer: ReadonlySet<string>): z.ZodType {
  const error = messageFor(type);
  switch (type) {
    case 'text':
      return z.union([z.string({ error }), z.number({ error })], { error }).meta({ description: 'Text, or a number written as it is' });
    case 'date':
      return z
        .string({ error })
        .regex(DATE_PATTERN, { error })
        .refine((value) => parseIsoDate(value) !== undefined, { error, abort: true })
        .meta({ format: 'date', description: 'An ISO 8601 calendar date, e.g. 2026-11-22' });
    case 'number':
      return z
        .union([z.number({ error }), z.string({ error }).regex(NUMERIC_STRING, { error })], { error })
        .meta({ description: 'A number, or a numeric string like "1234.50"' });
    case 'boolean':
      return z.boolean({ error }).meta({ description: 'true shows {#name} sections, false shows {^name} sections' });
    case 'image':
      return z.string({ error }).regex(IMAGE_SOURCE, { error }).meta({ format: 'uri', description: 'An http(s):// URL or a data: URI of a PNG, JPEG or GIF' });
    case 'list':
    case 'object': {
      const shape: Record<string, z.ZodType> = {};
      const fields = directFields(variable, prefix);
      // Inside a list item, a field an enclosing scope also gives may be left out (see above).
      const inner = type === 'list' ? new Set([...outer, ...fields.map(([field]) => field.slice(prefix.length))]) : new Set<string>();
      for (const [field, fieldType] of fields) {
        const key = field.slice(prefix.length);
        const schema = valueSchema(fieldType, variable, `${field}.`, inner);
        shape[key] = outer.has(key) && type === 'list' ? schema.optional() : schema;
      }
      if (type === 'object') return z.object(shape, { error });
      // An element that is not an object is the list's problem: report it on the list.
      const elementError = (issue: { path?: PropertyKey[] }) => PROBLEM.list((issue.path ?? []).slice(0, -1));
      return z.array(z.object(shape, { error: elementError }), { error });
    }
  }
}

function buildSchema(variables: TemplateVariable[]): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  const topLevel = new Set(variables.map((v) => v.name));
  for (const variable of variables) {
    const value = valueSchema(variable.type, variable, '', topLevel);
    shape[variable.name] = variable.required ? value : value.nullish();
  }
  return z.object(shape, { error: 'input_json must be a JSON object' });
}

// Built once per distinct variable list: the worker checks every document against it.
const cache = new Map<string, z.ZodObject>();
const CACHE_SIZE = 500;

export function inputSchema(variables: TemplateVariable[]): z.ZodObject {
  const key = JSON.stringify(variables);
  let schema = cache.get(key);
  if (!schema) {
    schema = buildSchema(variables);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(key, schema);
  }
  return schema;
}

/** The JSON Schema (draft 2020-12) of input_json for these variables. */
export function inputJsonSchema(variables: TemplateVariable[]): Record<string, unknown> {
  return z.toJSONSchema(inputSchema(variables), { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

/**
 * Throws a RenderInputError listing every problem of the input, in the variables' order: one
 * problem is the message itself; several are summarised ("3 problems: …; …") and each is
 * kept with its path (`input_json.items[2].price`) for the document's `errors`.
 */
export function checkInput(variables: TemplateVariable[], input: unknown): void {
  const result = inputSchema(variables).safeParse(input);
  if (result.success) return;
  const problems: { path: string; message: string }[] = [];
  for (const issue of result.error.issues) {
    const problem = { path: inputPath(issue.path), message: issue.message };
    if (!problems.some((known) => known.path === problem.path && known.message === problem.message)) problems.push(problem);
  }
  const messages = [...new Set(problems.map((problem) => problem.message))];
  const summary = messages.length === 1 ? messages[0]! : `${messages.length} problems: ${messages.join('; ')}`;
  throw new RenderInputError(summary, problems);
}

/** ["items", 2, "price"] → "input_json.items[2].price". */
function inputPath(path: PropertyKey[]): string {
  return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : `${text}.${String(part)}`), 'input_json');
}
