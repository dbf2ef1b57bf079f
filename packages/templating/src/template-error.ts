/** One problem found in a template, phrased for the person who edits it. */
export interface TemplateIssue {
  /** The tag as written, e.g. "{#items}", when the problem is about a tag. */
  tag?: string;
  /** Where: "body", "header", "footer", "footnotes"... */
  part: string;
  message: string;
}

export type TemplateErrorKind = 'unsupported' | 'invalid' | 'too_large' | 'syntax';

/** The uploaded file cannot become a template. `issues` lists every syntax problem. */
export class TemplateError extends Error {
  constructor(
    readonly kind: TemplateErrorKind,
    message: string,
    readonly issues: TemplateIssue[] = [],
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}
