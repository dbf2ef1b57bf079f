import type { Problem } from '@docgen/contracts';
import { inputJsonSchema, type TemplateVariable } from '@docgen/templating';

type Schema = Record<string, unknown>;

/** One accepted shape: a single JSON type with its pattern or format; `anyOf` and type lists spread into several. */
function alternatives(schema: Schema): Schema[] {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).flatMap(alternatives);
  if (Array.isArray(schema.type)) return (schema.type as string[]).map((type) => ({ ...schema, type }));
  return [schema];
}

const valued = (schema: Schema) => alternatives(schema).filter((alt) => alt.type !== 'null');

/** Whether `next` takes every value `previous` takes (arrays and objects are compared field by field in compareValues). */
function covers(next: Schema, previous: Schema): boolean {
  if (next.type !== previous.type) return false;
  if (next.type !== 'string') return true;
  return (next.pattern === undefined || next.pattern === previous.pattern) && (next.format === undefined || next.format === previous.format);
}

/** What a value must be, in the words of the API's variable types. */
function kind(schema: Schema): string {
  const alts = valued(schema);
  const types = new Set(alts.map((alt) => alt.type));
  if (types.has('array')) return 'a list';
  if (types.has('boolean')) return 'true or false';
  const string = alts.find((alt) => alt.type === 'string');
  if (string?.format === 'date') return 'a date';
  if (string?.format === 'uri') return 'an image (URL or data: URI)';
  if (types.has('number') && string && string.pattern === undefined) return 'text or a number';
  if (types.has('number')) return 'a number';
  return 'text';
}

const inputPath = (path: string[]) => `input_json.${path.join('.')}`;
const label = (path: string[]) => path.join('.');

/** The input itself, a list's items, or an object variable's fields. */
type Container = 'input' | 'list' | 'object';

function newRequired(container: Container, at: string[], path: string[]): string {
  if (container === 'input') return `New required variable "${label(at)}"`;
  return container === 'list' ? `New required field "${label(at)}" in the list "${label(path)}"` : `New required field "${label(at)}" in "${label(path)}"`;
}

function compareObjects(previous: Schema, next: Schema, path: string[], changes: Problem[], container: Container): void {
  const before = (previous.properties ?? {}) as Record<string, Schema>;
  const after = (next.properties ?? {}) as Record<string, Schema>;
  const requiredBefore = new Set((previous.required ?? []) as string[]);
  for (const name of (next.required ?? []) as string[]) {
    if (requiredBefore.has(name)) continue;
    const at = [...path, name];
    if (!(name in before)) {
      changes.push({ path: inputPath(at), message: newRequired(container, at, path) });
    } else {
      changes.push({ path: inputPath(at), message: `"${label(at)}" is now required` });
    }
  }
  for (const [name, schema] of Object.entries(before)) {
    const at = [...path, name];
    if (!(name in after)) {
      // A removed variable or object field only goes unprinted; a list field's data goes with it (API.md §12 counts it).
      if (container === 'list') changes.push({ path: inputPath(at), message: `The list field "${label(at)}" was removed` });
      continue;
    }
    compareValues(schema, after[name]!, at, changes);
  }
}

function compareValues(previous: Schema, next: Schema, path: string[], changes: Problem[]): void {
  const nextAlts = valued(next);
  const lost = valued(previous).some((old) => !nextAlts.some((alt) => covers(alt, old)));
  if (lost) {
    changes.push({ path: inputPath(path), message: `"${label(path)}" changed type: it took ${kind(previous)}, now ${kind(next)}` });
    return;
  }
  const listBefore = valued(previous).find((alt) => alt.type === 'array');
  const listAfter = nextAlts.find((alt) => alt.type === 'array');
  if (listBefore && listAfter) compareObjects(listBefore.items as Schema, listAfter.items as Schema, path, changes, 'list');
  // An object's fields (`{client.name}`), in a list's items too, are checked as a list's are.
  const objectBefore = valued(previous).find((alt) => alt.type === 'object');
  const objectAfter = nextAlts.find((alt) => alt.type === 'object');
  if (objectBefore && objectAfter) compareObjects(objectBefore, objectAfter, path, changes, 'object');
}

/**
 * Each change that would make `candidate` reject an input `published` accepts (API.md §12):
 * a new required variable or list field, a variable made required, a changed type, a
 * removed or retyped list field. Read from the two versions' input JSON Schemas — the
 * same check a document's input meets at render time — so it cannot disagree with it.
 */
export function breakingChanges(published: TemplateVariable[], candidate: TemplateVariable[]): Problem[] {
  const changes: Problem[] = [];
  compareObjects(inputJsonSchema(published), inputJsonSchema(candidate), [], changes, 'input');
  return changes;
}
