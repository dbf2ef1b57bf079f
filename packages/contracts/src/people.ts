import { z } from 'zod';
import { Timestamp } from './common';
import { apiSchemas } from './registry';

export const Role = z.enum(['admin', 'member']).register(apiSchemas, { id: 'Role' });

export const SESSION_COOKIE = 'docgen_session';
export const CSRF_HEADER = 'X-CSRF-Token';

export const SignInBody = z.object({
  email: z.string().min(1).max(254),
  password: z.string().min(1).max(1024),
});

export const Session = z
  .object({
    user: z.object({ id: z.uuid(), email: z.string(), role: Role }),
    organization: z.object({ id: z.uuid(), name: z.string(), rate_limit_per_minute: z.int().positive() }),
    csrf_token: z.string().describe('Send it as X-CSRF-Token on every request other than GET/HEAD made with the session cookie.'),
    expires_at: Timestamp.describe('When the session ends unless used: 12 h after its last use, at most 7 days after sign-in.'),
  })
  .register(apiSchemas, { id: 'Session', description: 'A signed-in person, their organisation and role.' });

export const ChangePasswordBody = z.object({
  current_password: z.string().min(1).max(1024),
  new_password: z.string().min(12, { error: 'must be at least 12 characters' }).max(1024),
});

export const ApiKey = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string().describe('The first characters of the key, to recognise it.'),
    created_at: Timestamp,
    expires_at: Timestamp.nullable(),
    revoked_at: Timestamp.nullable(),
    last_used_at: Timestamp.nullable().describe('Recorded at most once a minute.'),
  })
  .register(apiSchemas, { id: 'ApiKey' });

export const CreatedApiKey = ApiKey.extend({ key: z.string().describe('svc_…: shown only in this response.') }).register(apiSchemas, {
  id: 'CreatedApiKey',
});

export const ApiKeyList = z.object({ items: z.array(ApiKey) }).register(apiSchemas, { id: 'ApiKeyList' });

const isoDate = z.iso.date();
export const CreateApiKeyBody = z.object({
  name: z.string().trim().min(1).max(100),
  expires_at: z
    .union([z.iso.datetime({ offset: true }), isoDate], { error: 'must be an ISO 8601 date (2027-01-31) or date-time' })
    .nullable()
    .optional()
    .describe('A date means midnight UTC at its start. Omitted or null: never expires.'),
});

export const Member = z
  .object({ id: z.uuid().describe("The user's id (as in the session's user.id)."), email: z.string(), role: Role, created_at: Timestamp })
  .register(apiSchemas, { id: 'Member' });

export const CreatedMember = Member.extend({ password: z.string().describe('Generated; shown only in this response.') }).register(apiSchemas, {
  id: 'CreatedMember',
});

export const MemberList = z.object({ items: z.array(Member) }).register(apiSchemas, { id: 'MemberList' });

export const CreateMemberBody = z.object({ email: z.email({ error: 'must be an email address' }).max(254), role: Role });
