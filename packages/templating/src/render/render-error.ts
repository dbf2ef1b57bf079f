/** The template or the input is at fault: retrying will not help; the message says what to fix. */
export class RenderInputError extends Error {
  override name = 'RenderInputError';
}
