import { directFields, type TemplateVariable, type VariableType } from '../variables';
import { rowOf } from './input-schema';

export interface ImageSource {
  /** The URL or data: URI, as the input gives it. */
  source: string;
  /** Names the image for a message: `Image "photo" in item 3 of "items"`. */
  label: string;
}

/**
 * Every image value of a (checked) input, top-level and inside loops at any depth, in
 * document order; the same source may appear more than once.
 */
export function imageSources(variables: TemplateVariable[], input: Record<string, unknown>): ImageSource[] {
  const found: ImageSource[] = [];
  const visit = (value: unknown, type: VariableType, path: PropertyKey[], variable: TemplateVariable, prefix: string) => {
    if (type === 'image' && typeof value === 'string' && value !== '') {
      const row = path.length > 1 ? ` in ${rowOf(path.slice(0, -1))}` : '';
      found.push({ source: value, label: `Image "${String(path[path.length - 1])}"${row}` });
    } else if (type === 'list' && Array.isArray(value)) {
      const fields = directFields(variable, prefix);
      if (!fields.some(([, t]) => t === 'image' || t === 'list')) return;
      value.forEach((item: Record<string, unknown>, index) => {
        for (const [field, fieldType] of fields) {
          const key = field.slice(prefix.length);
          visit(item?.[key], fieldType, [...path, index, key], variable, `${field}.`);
        }
      });
    }
  };
  for (const variable of variables) visit(input[variable.name], variable.type, [variable.name], variable, '');
  return found;
}
