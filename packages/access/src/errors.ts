import { DomainError } from '@docgen/contracts';

/** Why an API key, member or session change was refused; the gateway's error table gives the status. */
/** `organization_exists` is the operator CLI's alone: no API operation creates organisations. */
export type AccessErrorCode = 'api_key_not_found' | 'member_not_found' | 'member_conflict' | 'last_admin' | 'validation_failed' | 'organization_exists';

/** A domain error of people and keys: a code and a sentence, never an HTTP status. The CLI prints the sentence. */
export class AccessError extends DomainError<AccessErrorCode> {}

export const apiKeyNotFound = () => new AccessError('api_key_not_found', 'API key not found');
export const memberNotFound = () => new AccessError('member_not_found', 'Member not found');
