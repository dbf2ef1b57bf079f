import type { TemplateVariable } from '../variables';
import { formatDate, parseIsoDate } from './format-date';
import { RenderInputError } from './render-error';

const DEFAULT_DATE_FORMAT = 'YYYY-MM-DD';
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks `input_json` against the template's variables and returns the data docxtemplater
 * renders: dates formatted, numbers as text. The first problem is thrown as a
 * RenderInputError naming the token.
 */
export function prepareRenderData(variables: TemplateVariable[], input: Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = { ...input };
  for (const variable of variables) {
    const value = input[variable.name];
    if (value === undefined || value === null) {
      if (variable.required) throw new RenderInputError(`Missing required token "${variable.name}"`);
      data[variable.name] = variable.type === 'list' ? [] : '';
      continue;
    }
    switch (variable.type) {
      case 'text':
        if (typeof value === 'number' && Number.isFinite(value)) data[variable.name] = String(value);
        else if (typeof value !== 'string') throw new RenderInputError(`Token "${variable.name}" must be text or a number`);
        break;
      case 'date': {
        const date = parseIsoDate(value);
        if (!date) throw new RenderInputError(`Token "${variable.name}" must be a date like 2026-11-22`);
        data[variable.name] = formatDate(date, variable.format ?? DEFAULT_DATE_FORMAT);
        break;
      }
      case 'list':
        if (!Array.isArray(value) || !value.every(isPlainObject)) {
          throw new RenderInputError(`Token "${variable.name}" must be a list of objects`);
        }
        break;
      case 'image':
        if (typeof value !== 'string' || !/^(https?:\/\/|data:)/i.test(value)) {
          throw new RenderInputError(`Image "${variable.name}" must be an http(s):// URL or a data: URI`);
        }
        break;
    }
  }
  return data;
}
