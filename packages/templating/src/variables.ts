import { IMAGE_MODULE_NAME } from './image-module';
import type { TemplateIssue } from './template-error';

export type VariableType = 'text' | 'date' | 'list' | 'image';

export interface TemplateVariable {
  name: string;
  type: VariableType;
  required: boolean;
  format?: string;
  /** List variables: the tags used inside the loop; nested loops as "inner" and "inner.field". */
  fields?: string[];
}

/** The part of docxtemplater's inspection output we read. */
export interface InspectedPart {
  type: string;
  value: string;
  module?: string;
  subparsed?: InspectedPart[];
}

const isLoop = (part: InspectedPart) => part.module === 'loop';

function loopFields(parts: InspectedPart[] = []): string[] {
  const fields: string[] = [];
  for (const part of parts) {
    if (part.type !== 'placeholder') continue;
    fields.push(part.value);
    if (isLoop(part)) fields.push(...loopFields(part.subparsed).map((field) => `${part.value}.${field}`));
  }
  return [...new Set(fields)];
}

/** Variables in first-use order; the same name used as two kinds of tag is an issue. */
export function detectVariables(parts: InspectedPart[]): { variables: TemplateVariable[]; issues: TemplateIssue[] } {
  const byName = new Map<string, TemplateVariable>();
  const issues: TemplateIssue[] = [];
  for (const part of parts) {
    if (part.type !== 'placeholder') continue;
    const type: VariableType = isLoop(part) ? 'list' : part.module === IMAGE_MODULE_NAME ? 'image' : 'text';
    const existing = byName.get(part.value);
    if (!existing) {
      byName.set(part.value, { name: part.value, type, required: true, ...(type === 'list' ? { fields: loopFields(part.subparsed) } : {}) });
    } else if (existing.type !== type) {
      issues.push({ tag: part.value, part: 'template', message: `"${part.value}" is used both as ${existing.type} and as ${type}; use one kind of tag per name` });
    } else if (type === 'list') {
      existing.fields = [...new Set([...(existing.fields ?? []), ...loopFields(part.subparsed)])];
    }
  }
  return { variables: [...byName.values()], issues };
}
