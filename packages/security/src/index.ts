export { generateApiKey, hashApiKey, looksLikeApiKey, API_KEY_PREFIX, type NewApiKey } from './api-keys';
export { blockedAddressReason } from './outbound/blocked-address';
export { OutboundBlockedError, OutboundRequestError } from './outbound/outbound-errors';
export { createGuardedAgent, guardedLookup } from './outbound/guarded-agent';
export { guardedFetch, assertFetchableUrl, assertPublicHost, type GuardedFetchOptions, type GuardedResponse } from './outbound/guarded-fetch';
export { generateWebhookSecret, signWebhook, webhookMessageId } from './webhook-signing';
export { hashPassword, verifyPassword, generatePassword, MIN_PASSWORD_LENGTH } from './passwords';
export { generateSessionToken, hashSessionToken, looksLikeSessionToken, csrfTokenFor, csrfTokenMatches, type NewSessionToken } from './session-tokens';
