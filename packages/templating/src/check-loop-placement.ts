import type { TagOccurrence } from './tag-scanner';
import type { TemplateIssue } from './template-error';

export const rowLoopAdvice = (name: string) =>
  `put {#${name}} in the first cell and {/${name}} in the last cell of the same row`;

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

/**
 * Image tags inside a loop (or an inverted section). Images are fetched before rendering from
 * the template's top-level image variables only, so an image that takes its value from each
 * element of a list would always fail at render; the template is refused at upload instead.
 */
export function checkImagesInLoops(tags: TagOccurrence[], part: string): TemplateIssue[] {
  const issues: TemplateIssue[] = [];
  const open: TagOccurrence[] = [];
  for (const tag of tags) {
    if (tag.prefix === '#' || tag.prefix === '^') open.push(tag);
    else if (tag.prefix === '/') open.pop();
    else if (tag.prefix === '%' && open.length > 0) {
      const loop = open[open.length - 1]!;
      issues.push({
        tag: tag.raw,
        part,
        message: `Image tags inside loops are not supported: "${tag.raw}" is inside the loop "${loop.name}"; move the image outside the loop (before {#${loop.name}} or after {/${loop.name}})`,
      });
    }
  }
  return issues;
}
