import { DomainError, type Problem } from '@docgen/contracts';

/** Why a template or version change was refused; the gateway's error table gives the status. */
export type TemplatesErrorCode =
  'template_not_found' | 'version_not_found' | 'validation_failed' | 'unsupported_media_type' | 'breaking_change' | 'no_preview' | 'queue_unavailable';

/** A domain error of templates and their versions: a code and a sentence, never an HTTP status. */
export class TemplatesError extends DomainError<TemplatesErrorCode> {}

export const versionNotFound = () => new TemplatesError('version_not_found', 'Template version not found');

export const invalid = (problems: Problem[]) => new TemplatesError('validation_failed', problems[0]!.message, problems);
