import { compileExpression } from '@docgen/expressions';
import type { TagOccurrence } from '../tag-scanner';
import type { TemplateIssue } from '../template-error';

/**
 * Every tag that holds an expression must parse and name known filters with fitting
 * arguments (API §11): one issue per problem, with the tag as written and where it is.
 */
export function checkTagExpressions(tags: TagOccurrence[], part: string): TemplateIssue[] {
  const issues: TemplateIssue[] = [];
  for (const tag of tags) {
    if (tag.prefix === '/' || tag.prefix === '@' || tag.name === '') continue;
    const compiled = compileExpression(tag.name, { image: tag.prefix === '%' });
    if (compiled.ok) continue;
    for (const error of compiled.errors) {
      issues.push({ tag: tag.raw, part, message: `${error.message} (at character ${error.at + 1} of "${tag.name}")` });
    }
  }
  return issues;
}
