import { compileExpression, inferVariables, plainPath, type VariableUse } from '@docgen/expressions';
import { IMAGE_MODULE_NAME } from './image-module';
import type { TemplateIssue } from './template-error';

export type VariableType = 'text' | 'date' | 'number' | 'boolean' | 'list' | 'image' | 'object';

/** How a number variable is written (Intl.NumberFormat in the template's locale). */
export interface NumberFormat {
  style: 'decimal' | 'currency' | 'percent';
  currency?: string;
  minimum_fraction_digits?: number;
  maximum_fraction_digits?: number;
}

export type VariableFormat = string | NumberFormat;

export interface TemplateVariable {
  name: string;
  type: VariableType;
  required: boolean;
  /** Date variables: a date format string; number variables: a NumberFormat. */
  format?: VariableFormat;
  /**
   * List variables: the tags used inside the loop; nested loops as "inner" and "inner.field".
   * Object variables: the members expressions read (`client.address.city` → "address", "address.city").
   */
  fields?: string[];
  /** List and object variables: each field's type, keyed like `fields`. */
  field_types?: Record<string, VariableType>;
  /** List and object variables: the format of a date or number field, keyed like `fields`. */
  field_formats?: Record<string, VariableFormat>;
}

/** The part of docxtemplater's inspection output we read. */
export interface InspectedPart {
  type: string;
  value: string;
  module?: string;
  subparsed?: InspectedPart[];
}

const isLoop = (part: InspectedPart) => part.module === 'loop';
const hasPlaceholders = (part: InspectedPart) => (part.subparsed ?? []).some((inner) => inner.type === 'placeholder');

/** The type a tag gives its name; a section with no tags inside is a boolean. */
function typeOfTag(part: InspectedPart): VariableType {
  if (isLoop(part)) return hasPlaceholders(part) ? 'list' : 'boolean';
  return part.module === IMAGE_MODULE_NAME ? 'image' : 'text';
}

/**
 * A name used as a section anywhere with tags inside is a list, even where another use is
 * empty. An object read by member paths may also be tested by a section (`{#client}`); a
 * loop over it keeps it a list (its member paths are then not described).
 */
function mergeTypes(a: VariableType, b: VariableType): VariableType | undefined {
  if (a === b) return a;
  const kinds = new Set([a, b]);
  if (kinds.has('object')) return kinds.has('boolean') ? 'object' : kinds.has('list') ? 'list' : undefined;
  return kinds.has('list') && kinds.has('boolean') ? 'list' : undefined;
}

/**
 * How a tag reads its data: a single name keeps the meaning it always had (its kind of tag
 * is its type); any other expression reads the names inferVariables finds, typed by use.
 * A tag that does not compile was reported by the upload check; it reads nothing here.
 */
function readTag(part: InspectedPart): { name: string } | { uses: VariableUse[] } | undefined {
  const text = part.value.trim();
  if (text === '.') return { name: part.value };
  const compiled = compileExpression(text, { image: part.module === IMAGE_MODULE_NAME });
  if (!compiled.ok) return undefined;
  const path = plainPath(compiled.ast);
  if (path?.length === 1) return { name: part.value };
  // A section on a member (`{#client.orders}…{/}`) may loop or test; what it reads is not described.
  if (path && isLoop(part)) return { uses: [] };
  const uses = inferVariables(compiled.ast);
  // `{%client.logo}`: the member an image tag reads is an image.
  if (path && part.module === IMAGE_MODULE_NAME) return { uses: uses.map((use) => ({ ...use, type: 'image' })) };
  return { uses };
}

/**
 * A type inferred from an expression meets what is known of the name: a more specific
 * inference wins over text (`{total}` and `{total * 2}` make a number), text never
 * downgrades, and a list stays a list where a condition tests it.
 */
function mergeInferred(known: VariableType, inferred: VariableType): VariableType | undefined {
  if (known === inferred) return known;
  if (known === 'text' && (inferred === 'number' || inferred === 'date' || inferred === 'boolean')) return inferred;
  if (inferred === 'text' && (known === 'number' || known === 'date')) return known;
  if (known === 'list' && inferred === 'boolean') return known;
  return mergeTypes(known, inferred);
}

/**
 * What one use reads, added to a scope's fields (`prefix` "" for a variable's own fields,
 * "lines." inside a nested loop): `address.city` makes `address` an object and `address.city`
 * the use's type; a list also gets the fields its aggregates read. A value with a default is
 * optional, so left out.
 */
function addFieldUse(use: VariableUse, into: Map<string, VariableType>, prefix: string): void {
  if (use.optional) return;
  let path = '';
  for (const [index, segment] of use.path.entries()) {
    path = index === 0 ? `${prefix}${segment}` : `${path}.${segment}`;
    const type = index < use.path.length - 1 ? 'object' : use.type;
    const known = into.get(path);
    const merged = known ? (mergeInferred(known, type) ?? known) : type;
    into.set(path, merged);
    // The members of a list (or of a name with another kind of use) are not described.
    if (index < use.path.length - 1 && merged !== 'object') return;
  }
  if (use.type === 'list') for (const field of use.fields ?? []) addFieldUse(field, into, `${path}.`);
}

/** Field paths inside a loop ("photo", "inner", "inner.sku") with their detected types. */
function loopFieldTypes(parts: InspectedPart[] = [], into = new Map<string, VariableType>(), prefix = ''): Map<string, VariableType> {
  for (const part of parts) {
    if (part.type !== 'placeholder') continue;
    const read = readTag(part);
    if (!read) continue;
    if ('uses' in read) {
      for (const use of read.uses) addFieldUse(use, into, prefix);
      // A condition (`{#price > 100}…{/}`) shows its content in the same scope.
      if (isLoop(part)) loopFieldTypes(part.subparsed, into, prefix);
      continue;
    }
    const path = `${prefix}${part.value.trim()}`;
    const type = typeOfTag(part);
    const known = into.get(path);
    into.set(path, known ? (mergeTypes(known, type) ?? known) : type);
    if (isLoop(part)) loopFieldTypes(part.subparsed, into, `${path}.`);
  }
  // A nested name that turned out to hold fields is a list.
  for (const [path, type] of into) {
    if (type === 'boolean' && [...into.keys()].some((other) => other.startsWith(`${path}.`))) into.set(path, 'list');
  }
  return into;
}

/** Variables in first-use order; the same name used as two kinds of tag is an issue. */
export function detectVariables(parts: InspectedPart[]): { variables: TemplateVariable[]; issues: TemplateIssue[] } {
  const byName = new Map<string, TemplateVariable>();
  const loopParts = new Map<string, InspectedPart[]>();
  const inferredFields = new Map<string, Map<string, VariableType>>();
  const issues: TemplateIssue[] = [];
  const conflict = (name: string, a: VariableType, b: VariableType) => {
    const kind = (t: VariableType) => (t === 'boolean' ? 'list' : t);
    issues.push({ tag: name, part: 'template', message: `"${name}" is used both as ${kind(a)} and as ${kind(b)}; use one kind of tag per name` });
  };
  const addUse = (use: VariableUse) => {
    const [name, ...members] = use.path as [string, ...string[]];
    const type = members.length > 0 ? 'object' : use.type;
    const existing = byName.get(name);
    if (!existing) byName.set(name, { name, type, required: !use.optional });
    else {
      const merged = mergeInferred(existing.type, type);
      if (merged) existing.type = merged;
      else conflict(name, existing.type, type);
      if (!use.optional) existing.required = true;
    }
    const fields = inferredFields.get(name) ?? new Map<string, VariableType>();
    if (members.length > 0) addFieldUse({ ...use, path: members }, fields, '');
    else if (use.type === 'list') for (const field of use.fields ?? []) addFieldUse(field, fields, '');
    inferredFields.set(name, fields);
  };
  const visit = (scopeParts: InspectedPart[]) => {
    for (const part of scopeParts) {
      if (part.type !== 'placeholder') continue;
      const read = readTag(part);
      if (!read) continue;
      if ('uses' in read) {
        read.uses.forEach(addUse);
        // A condition (`{#total > 1000}…{/}`) shows its content in the same scope.
        if (isLoop(part)) visit(part.subparsed ?? []);
        continue;
      }
      visitNamedTag(part);
    }
  };
  const visitNamedTag = (part: InspectedPart) => {
    const type = typeOfTag(part);
    const existing = byName.get(part.value);
    if (isLoop(part)) loopParts.set(part.value, [...(loopParts.get(part.value) ?? []), part]);
    if (!existing) {
      byName.set(part.value, { name: part.value, type, required: true });
      return;
    }
    existing.required = true;
    // A plain tag of a name an expression typed (number, date) prints it in that type.
    const merged = type === 'text' && (existing.type === 'number' || existing.type === 'date') ? existing.type : mergeTypes(existing.type, type);
    if (merged) existing.type = merged;
    else conflict(part.value, existing.type, type);
  };
  visit(parts);
  for (const variable of byName.values()) {
    if (variable.type !== 'list' && variable.type !== 'object') continue;
    const types = new Map<string, VariableType>(inferredFields.get(variable.name));
    for (const part of loopParts.get(variable.name) ?? []) loopFieldTypes(part.subparsed, types);
    variable.fields = [...types.keys()];
    variable.field_types = Object.fromEntries(types);
  }
  return { variables: [...byName.values()], issues };
}

/** The types a variable (or list field) of a detected type may be switched to with PATCH. */
export function switchableTypes(detected: VariableType): VariableType[] {
  if (detected === 'text' || detected === 'date' || detected === 'number') return ['text', 'date', 'number'];
  if (detected === 'boolean') return ['boolean', 'list'];
  return [detected];
}

/**
 * The fields directly inside a list (prefix "" for the variable's own loop, "lines." for a
 * nested one) with their types, in template order: `fields` keeps the order, `field_types`
 * (a JSON object, reordered by PostgreSQL's jsonb) only the types.
 */
export function directFields(variable: TemplateVariable, prefix = ''): [path: string, type: VariableType][] {
  const fields = variable.fields ?? [];
  return fields
    .filter((field) => field.startsWith(prefix) && !field.slice(prefix.length).includes('.'))
    .map((field) => [field, variable.field_types?.[field] ?? (fields.some((f) => f.startsWith(`${field}.`)) ? 'list' : 'text')]);
}
