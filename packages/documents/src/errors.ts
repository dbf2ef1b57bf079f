import { DomainError } from '@docgen/contracts';

/** What went wrong in a document's life, as a code the caller maps (the gateway to a status) and a sentence for the user. */
export type DocumentErrorCode =
  | 'template_not_found'
  | 'version_not_found'
  | 'document_not_found'
  | 'bulk_job_not_found'
  | 'idempotency_key_reused'
  | 'queue_unavailable'
  | 'too_many_in_progress'
  | 'merge_source_invalid'
  | 'purged';

/**
 * A domain error: thrown by the functions that change documents, bulk jobs and events,
 * whoever calls them. It never names an HTTP status; the gateway's error handler does.
 */
export class DocumentError extends DomainError<DocumentErrorCode> {}

export const templateNotFound = () => new DocumentError('template_not_found', 'Template not found');
/** `template_version` names no version of the template (drafts count). */
export const versionNotFound = () => new DocumentError('version_not_found', 'Template version not found');
export const documentNotFound = () => new DocumentError('document_not_found', 'Document not found');
export const bulkJobNotFound = () => new DocumentError('bulk_job_not_found', 'Bulk job not found');

/** Retention removed the document's input: retrying it would render `{}`. */
export const inputPurged = (purgedAt: Date) =>
  new DocumentError(
    'purged',
    `This document's input was removed on ${purgedAt.toISOString()} by the retention policy; send a new request with a new idempotency key`,
  );

/** The document's template was deleted and its files removed (the deleted-template sweep): it cannot be generated again. */
export const templatePurged = () =>
  new DocumentError(
    'purged',
    "This document's template was deleted and its files removed, so it cannot be generated again; send a new request for another template with a new idempotency key",
  );

/** Redis refused a job: nothing was left half-written. */
export const queueUnavailable = () => new DocumentError('queue_unavailable', 'The job queue (Redis) is unreachable');

/** The organisation has MAX_ACTIVE_PER_ORG documents queued or rendering (API.md §9): it should come back later. */
export const tooManyInProgress = () => new DocumentError('too_many_in_progress', 'Too many documents in progress for this organisation; try again later.');
