import { DEFAULT_DATE_FORMAT, type TemplateVariableBody, type VariablesPatch } from '@docgen/contracts';
import { switchableTypes, type VariableType } from '@docgen/templating';
import type { z } from 'zod';
import { HttpError } from '../errors';

type Patch = z.output<typeof VariablesPatch>['variables'];
type Change = Patch[number];
type Problem = { path: string; message: string };

/** The types a name may take: what its tags allow (a section with nothing inside may be a list or a boolean). */
function allowedTypes(type: VariableType, hasFields: boolean): VariableType[] {
  return type === 'list' && !hasFields ? ['list', 'boolean'] : switchableTypes(type);
}

/** The format a type keeps after a change, or a problem with the one asked for. */
function nextFormat(
  label: string,
  type: VariableType,
  change: Change,
  current: TemplateVariableBody['format'],
): { format?: TemplateVariableBody['format']; problem?: string } {
  const asked = change.format;
  if (type === 'date') {
    if (asked !== undefined && typeof asked !== 'string') return { problem: `"${label}" is a date; its format is a date format string such as DD/MM/YYYY` };
    return { format: asked ?? (typeof current === 'string' ? current : DEFAULT_DATE_FORMAT) };
  }
  if (type === 'number') {
    if (asked !== undefined && typeof asked !== 'object')
      return { problem: `"${label}" is a number; its format is an object such as {"style": "currency", "currency": "EUR"}` };
    const format = asked ?? (typeof current === 'object' ? current : undefined);
    return format ? { format } : {};
  }
  if (asked !== undefined) return { problem: `"${label}" is a ${type}; only date and number variables have a format` };
  return {};
}

/**
 * Applies a PATCH to the detected variables. Only what the template's syntax leaves open
 * can change: text ↔ date ↔ number (with a format), boolean ↔ list for a section with no
 * tags inside, whether a value is required, and the same for list and object fields ("items.price").
 */
export function updateVariables(current: TemplateVariableBody[], patch: Patch): TemplateVariableBody[] {
  const problems: Problem[] = [];
  const next = current.map((variable) => ({
    ...variable,
    ...(variable.field_types ? { field_types: { ...variable.field_types } } : {}),
    ...(variable.field_formats ? { field_formats: { ...variable.field_formats } } : {}),
  }));
  patch.forEach((change, index) => {
    const at = (field: string) => `variables.${index}.${field}`;
    const dot = change.name.indexOf('.');
    const variable = next.find((v) => v.name === (dot < 0 ? change.name : change.name.slice(0, dot)));
    if (!variable) {
      problems.push({ path: at('name'), message: `"${change.name}" is not a variable of this template` });
      return;
    }
    if (dot >= 0) {
      const problem = updateField(variable, change.name.slice(dot + 1), change);
      if (problem) problems.push({ path: at(problem.field), message: problem.message });
      return;
    }
    const type = change.type ?? variable.type;
    if (!allowedTypes(variable.type, (variable.fields ?? []).length > 0).includes(type)) {
      problems.push({
        path: at('type'),
        message: `"${variable.name}" is a ${variable.type} tag; it can be ${allowedTypes(variable.type, (variable.fields ?? []).length > 0).join(' or ')}`,
      });
      return;
    }
    const { format, problem } = nextFormat(variable.name, type, change, variable.format);
    if (problem) {
      problems.push({ path: at('format'), message: problem });
      return;
    }
    variable.type = type;
    if (format === undefined) delete variable.format;
    else variable.format = format;
    if (change.required !== undefined) variable.required = change.required;
  });
  if (problems.length > 0) throw new HttpError('validation_failed', problems[0]!.message, { errors: problems });
  return next;
}

/** "items.price", "client.address.city": a list's or an object's field type and format; fields are always required. */
function updateField(variable: TemplateVariableBody, field: string, change: Change): { field: string; message: string } | undefined {
  const label = `${variable.name}.${field}`;
  const fields = variable.fields ?? [];
  const holder = variable.type === 'object' ? 'object' : 'list';
  if ((variable.type !== 'list' && variable.type !== 'object') || !fields.includes(field))
    return { field: 'name', message: `"${label}" is not a field of a ${holder} of this template` };
  if (change.required !== undefined)
    return {
      field: 'required',
      message: `"${label}" is ${holder === 'object' ? 'an object' : 'a list'} field; every field of ${holder === 'object' ? 'an object' : 'a list item'} is required`,
    };
  const types = (variable.field_types ??= Object.fromEntries(fields.map((f) => [f, fields.some((o) => o.startsWith(`${f}.`)) ? 'list' : 'text'])));
  const currentType = types[field] ?? 'text';
  const type = change.type ?? currentType;
  const hasFields = fields.some((f) => f.startsWith(`${field}.`));
  if (!allowedTypes(currentType, hasFields).includes(type)) {
    return { field: 'type', message: `"${label}" is a ${currentType} tag; it can be ${allowedTypes(currentType, hasFields).join(' or ')}` };
  }
  const formats = (variable.field_formats ??= {});
  const { format, problem } = nextFormat(label, type, change, formats[field]);
  if (problem) return { field: 'format', message: problem };
  types[field] = type;
  if (format === undefined) delete formats[field];
  else formats[field] = format;
  if (Object.keys(formats).length === 0) delete variable.field_formats;
  return undefined;
}
