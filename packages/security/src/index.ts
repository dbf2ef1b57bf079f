export { generateApiKey, hashApiKey, looksLikeApiKey, API_KEY_PREFIX, type NewApiKey } from './api-keys';
export { blockedAddressReason } from './outbound/blocked-address';
export { OutboundBlockedError, OutboundRequestError } from './outbound/outbound-errors';
export { createGuardedAgent, guardedLookup } from './outbound/guarded-agent';
export { guardedFetch, assertFetchableUrl, assertPublicHost, type GuardedFetchOptions, type GuardedResponse } from './outbound/guarded-fetch';
export { generateWebhookSecret, signWebhook, webhookMessageId } from './webhook-signing';
export { hashPassword, verifyPassword, generatePassword, MIN_PASSWORD_LENGTH } from './passwords';
export { generateSessionToken, hashSessionToken, looksLikeSessionToken, csrfTokenFor, csrfTokenMatches, type NewSessionToken } from './session-tokens';
export {
  masterKey,
  secretsKeyring,
  sealSecret,
  openSecret,
  rewrapSecret,
  SecretsKeyError,
  SecretEnvelopeError,
  type MasterKey,
  type SecretsKeyring,
  type SecretEnvelope,
} from './secrets-envelope';
export { readPkcs12, checkedSigningKey, Pkcs12Error, type Pkcs12Contents, type Pkcs12Problem } from './pkcs12';
