// Who may call, and as whom: API keys, people (members, roles) and their sessions. Every
// write to api_keys, users, memberships and sessions happens here; the gateway's routes and
// the operator CLI call these functions, which throw AccessError (a code, never a status).
export { AccessError, apiKeyNotFound, memberNotFound, signingCertificateNotFound, secretsKeyMissing, type AccessErrorCode } from './errors';
export type { Caller, CallerSession } from './caller';
export { ROLES, type Role } from './roles';
export { parseExpiry } from './api-keys/parse-expiry';
export { createApiKey } from './api-keys/create-api-key';
export { listApiKeys } from './api-keys/list-api-keys';
export { revokeApiKey } from './api-keys/revoke-api-key';
export { findApiKey, recordApiKeyUse, type ApiKeyRow } from './api-keys/find-api-key';
export { KeyLookupEpochs, keyLookupEpochKey, CURRENT_EPOCH_LUA } from './api-keys/key-lookup-epoch';
export { addMember } from './members/add-member';
export { listMembers } from './members/list-members';
export { removeMember } from './members/remove-member';
export { findSession, type SessionRow } from './sessions/find-session';
export { findSignIn, type SignInRow } from './sessions/find-sign-in';
export { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, LAST_SEEN_GRANULARITY_MS, sessionEndsAt } from './sessions/session-lifetime';
export { startSession } from './sessions/start-session';
export { endSession } from './sessions/end-session';
export { changePassword } from './sessions/change-password';
export { recordSessionUse } from './sessions/record-session-use';
export { createOrganization, setRateLimit } from './organizations/create-organization';
export { seedDemoAccess, type DemoAccess } from './demo/seed-demo';
export {
  uploadSigningCertificate,
  listSigningCertificates,
  hasSigningCertificate,
  signingCertificateStatus,
  deleteSigningCertificate,
  loadSigningMaterial,
  rewrapSigningKeys,
  type SigningCertificateInfo,
  type SigningMaterial,
  type UploadSigningCertificate,
} from './signing-certificates/signing-certificates';
