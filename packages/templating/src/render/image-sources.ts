import { directFields, type TemplateVariable, type VariableType } from '../variables';
import { imageLabel } from './input-schema';

export interface ImageSource {
  /** The URL or data: URI, as the input gives it. */
  source: string;
  /** Names the image for a message: `Image "photo" in item 3 of "items"`. */
  label: string;
}

/**
 * Every image value of a (checked) input, top-level and inside loops and objects at any depth, in
 * document order; the same source may appear more than once.
 */
export function imageSources(variables: TemplateVariable[], input: Record<string, unknown>): ImageSource[] {
  const found: ImageSource[] = [];
  const visit = (value: unknown, type: VariableType, path: PropertyKey[], variable: TemplateVariable, prefix: string) => {
    if (type === 'image' && typeof value === 'string' && value !== '') {
      found.push({ source: value, label: imageLabel(path) });
    } else if (type === 'list' && Array.isArray(value)) {
      const fields = directFields(variable, prefix);
      if (!fields.some(([, t]) => t === 'image' || t === 'list')) return;
      value.forEach((item: Record<string, unknown>, index) => {
        for (const [field, fieldType] of fields) {
          const key = field.slice(prefix.length);
          visit(item?.[key], fieldType, [...path, index, key], variable, `${field}.`);
        }
      });
    } else if (type === 'object' && value !== null && typeof value === 'object') {
      for (const [field, fieldType] of directFields(variable, prefix)) {
        const key = field.slice(prefix.length);
        visit((value as Record<string, unknown>)[key], fieldType, [...path, key], variable, `${field}.`);
      }
    }
  };
  for (const variable of variables) visit(input[variable.name], variable.type, [variable.name], variable, '');
  return found;
}
