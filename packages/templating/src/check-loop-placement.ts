import type { TagOccurrence } from './tag-scanner';
import type { TemplateIssue } from './template-error';

export const rowLoopAdvice = (name: string) => `put {#${name}} in the first cell and {/${name}} in the last cell of the same row`;

/**
 * Loops whose start and end sit in two different tables. docxtemplater accepts them but
 * repeats a meaningless stretch of both tables; a loop with one end in a table and the
 * other outside is reported by docxtemplater itself (loop_position_invalid).
 */
export function checkLoopPlacement(tags: TagOccurrence[], part: string): TemplateIssue[] {
  const issues: TemplateIssue[] = [];
  const open: TagOccurrence[] = [];
  for (const tag of tags) {
    if (tag.prefix === '#' || tag.prefix === '^') open.push(tag);
    else if (tag.prefix === '/') {
      const start = open.pop();
      if (!start || (tag.name && tag.name !== start.name)) continue;
      if (start.table && tag.table && start.table !== tag.table) {
        issues.push({
          tag: start.raw,
          part,
          message: `The loop "${start.name}" starts in one table and ends in another; ${rowLoopAdvice(start.name)}`,
        });
      }
    }
  }
  return issues;
}
