import { DEFAULT_DATE_FORMAT, type TemplateVariableBody, type VariablesPatch } from '@docgen/contracts';
import type { z } from 'zod';
import { HttpError } from '../errors';

type Patch = z.output<typeof VariablesPatch>['variables'];
type Problem = { path: string; message: string };

/**
 * Applies a PATCH to the detected variables. Only what the template's syntax leaves open
 * can change: text ↔ date (with a format) and whether a value is required.
 */
export function updateVariables(current: TemplateVariableBody[], patch: Patch): TemplateVariableBody[] {
  const problems: Problem[] = [];
  const next = current.map((variable) => ({ ...variable }));
  patch.forEach((change, index) => {
    const at = (field: string) => `variables.${index}.${field}`;
    const variable = next.find((v) => v.name === change.name);
    if (!variable) {
      problems.push({ path: at('name'), message: `"${change.name}" is not a variable of this template` });
      return;
    }
    const type = change.type ?? variable.type;
    const switchable = (t: string) => t === 'text' || t === 'date';
    if (type !== variable.type && !(switchable(type) && switchable(variable.type))) {
      problems.push({ path: at('type'), message: `"${variable.name}" is a ${variable.type} tag; only text and date variables can change type` });
      return;
    }
    if (change.format !== undefined && type !== 'date') {
      problems.push({ path: at('format'), message: `"${variable.name}" is not a date; only date variables have a format` });
      return;
    }
    variable.type = type;
    if (type === 'date') variable.format = change.format ?? variable.format ?? DEFAULT_DATE_FORMAT;
    else delete variable.format;
    if (change.required !== undefined) variable.required = change.required;
  });
  if (problems.length > 0) throw new HttpError(422, problems[0]!.message, { errors: problems });
  return next;
}
