/** The template or the input is at fault: retrying will not help; the message says what to fix. */
export class RenderInputError extends Error {
  override name = 'RenderInputError';

  constructor(
    message: string,
    /** Every problem of the input, when there were several to report (API.md §9). */
    readonly problems: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}
