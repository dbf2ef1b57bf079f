import { DomainError } from '@docgen/contracts';

/** Why an API key, member or session change was refused; the gateway's error table gives the status. */
/** `organization_exists` is the operator CLI's alone: no API operation creates organisations. */
export type AccessErrorCode =
  | 'api_key_not_found'
  | 'member_not_found'
  | 'member_conflict'
  | 'last_admin'
  | 'validation_failed'
  | 'organization_exists'
  | 'signing_certificate_not_found'
  | 'signing_certificate_invalid'
  | 'secrets_key_missing'
  | 'key_lookups_unreachable';

/** A domain error of people and keys: a code and a sentence, never an HTTP status. The CLI prints the sentence. */
export class AccessError extends DomainError<AccessErrorCode> {}

export const apiKeyNotFound = () => new AccessError('api_key_not_found', 'API key not found');
export const memberNotFound = () => new AccessError('member_not_found', 'Member not found');
export const signingCertificateNotFound = () => new AccessError('signing_certificate_not_found', 'Signing certificate not found');

/** SECRETS_KEY is what encrypts signing keys at rest; without it none can be stored or used. */
export const secretsKeyMissing = () =>
  new AccessError(
    'secrets_key_missing',
    'Signing certificates need SECRETS_KEY (32 random bytes, base64), and this service has none; the operator must set it',
  );

/** A write behind the gateways' key lookups is saved, but the lookup epoch could not be moved (key-lookup-epoch.ts). */
export const keyLookupsUnreachable = () =>
  new AccessError(
    'key_lookups_unreachable',
    'The change is saved, but Redis is unreachable, so gateways could not be told of it; repeat it once Redis answers (until then a gateway may use the key as it was for up to a minute)',
  );
