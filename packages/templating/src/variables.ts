import { IMAGE_MODULE_NAME } from './image-module';
import type { TemplateIssue } from './template-error';

export type VariableType = 'text' | 'date' | 'number' | 'boolean' | 'list' | 'image';

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
  /** List variables: the tags used inside the loop; nested loops as "inner" and "inner.field". */
  fields?: string[];
  /** List variables: each field's type, keyed like `fields`. */
  field_types?: Record<string, VariableType>;
  /** List variables: the format of a date or number field, keyed like `fields`. */
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

/** A name used as a section anywhere with tags inside is a list, even where another use is empty. */
function mergeTypes(a: VariableType, b: VariableType): VariableType | undefined {
  if (a === b) return a;
  const sections = new Set<VariableType>(['list', 'boolean']);
  return sections.has(a) && sections.has(b) ? 'list' : undefined;
}

/** Field paths inside a loop ("photo", "inner", "inner.sku") with their detected types. */
function loopFieldTypes(parts: InspectedPart[] = [], into = new Map<string, VariableType>(), prefix = ''): Map<string, VariableType> {
  for (const part of parts) {
    if (part.type !== 'placeholder') continue;
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
  const issues: TemplateIssue[] = [];
  for (const part of parts) {
    if (part.type !== 'placeholder') continue;
    const type = typeOfTag(part);
    const existing = byName.get(part.value);
    if (isLoop(part)) loopParts.set(part.value, [...(loopParts.get(part.value) ?? []), part]);
    if (!existing) {
      byName.set(part.value, { name: part.value, type, required: true });
      continue;
    }
    const merged = mergeTypes(existing.type, type);
    if (merged) existing.type = merged;
    else {
      const kind = (t: VariableType) => (t === 'boolean' ? 'list' : t);
      issues.push({
        tag: part.value,
        part: 'template',
        message: `"${part.value}" is used both as ${kind(existing.type)} and as ${kind(type)}; use one kind of tag per name`,
      });
    }
  }
  for (const variable of byName.values()) {
    if (variable.type !== 'list') continue;
    const types = new Map<string, VariableType>();
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
