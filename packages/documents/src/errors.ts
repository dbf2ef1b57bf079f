/** What went wrong in a document's life, as a code the caller maps (the gateway to a status) and a sentence for the user. */
export type DocumentErrorCode = 'template_not_found' | 'idempotency_key_reused' | 'queue_unavailable';

/**
 * A domain error: thrown by the functions that change documents, bulk jobs and events,
 * whoever calls them. It never names an HTTP status; the gateway's error handler does.
 */
export class DocumentError extends Error {
  override name = 'DocumentError';

  constructor(
    readonly code: DocumentErrorCode,
    message: string,
    /** Where the problem is, for a caller that lists problems by field. */
    readonly problems: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

export const templateNotFound = () => new DocumentError('template_not_found', 'Template not found');

/** Redis refused a job: nothing was left half-written. */
export const queueUnavailable = () => new DocumentError('queue_unavailable', 'The job queue (Redis) is unreachable');
