import { directFields, type TemplateVariable, type VariableType } from '@docgen/templating';
import { PLACEHOLDER_IMAGE_URI } from './placeholder-image';

/**
 * An input every variable of the template accepts, the same on every run (a baseline made
 * from today's date would drift tomorrow): text names its variable, a fixed date and
 * number, true for conditions, two rows per list, every member of an object, the
 * placeholder picture for images.
 * Optional variables get values too, so that every part of the template is drawn.
 */
export function sampleInput(variables: TemplateVariable[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const variable of variables) input[variable.name] = sampleValue(variable.type, variable.name, variable, '');
  return input;
}

function sampleValue(type: VariableType, name: string, variable: TemplateVariable, prefix: string): unknown {
  switch (type) {
    case 'text':
      return `Sample ${name}`;
    case 'date':
      return '2026-01-31';
    case 'number':
      return 1234.5;
    case 'boolean':
      return true;
    case 'image':
      return PLACEHOLDER_IMAGE_URI;
    case 'list':
      return [1, 2].map((row) => members(variable, prefix, (key) => `${key} ${row}`));
    case 'object':
      return members(variable, prefix, (key) => `${name} ${key}`);
  }
}

/** A list row's or an object's members, each named for the text it shows. */
function members(variable: TemplateVariable, prefix: string, label: (key: string) => string): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const [field, fieldType] of directFields(variable, prefix)) {
    const key = field.slice(prefix.length);
    item[key] = sampleValue(fieldType, label(key), variable, `${field}.`);
  }
  return item;
}
