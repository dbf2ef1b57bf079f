/** One problem, where it is: a field ("expires_at", "input_json.items") or the uploaded "file". */
export interface Problem {
  path: string;
  message: string;
  tag?: string;
  part?: string;
}

/**
 * What every domain package throws: a code from a closed list and a sentence for the user.
 * It never names an HTTP status — the gateway's error table maps the code, the CLI and the
 * workers read the sentence.
 */
export class DomainError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    /** Where the problems are, for a caller that lists them by field. */
    readonly problems: Problem[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}
