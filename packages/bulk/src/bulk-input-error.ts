/** The spreadsheet cannot become a bulk job; nothing is queued. */
export class BulkInputError extends Error {
  override name = 'BulkInputError';
  constructor(
    readonly status: 413 | 415 | 422,
    message: string,
  ) {
    super(message);
  }
}
