import { Session } from '@docgen/contracts';
import { csrfTokenFor } from '@docgen/security';
import type { Caller } from '@docgen/access';

export const presentSession = (organization: Caller['organization'], session: NonNullable<Caller['session']>) =>
  Session.parse({
    user: session.user,
    organization: { id: organization.id, name: organization.name, rate_limit_per_minute: organization.rateLimitPerMinute },
    csrf_token: csrfTokenFor(session.token),
    expires_at: session.endsAt.toISOString(),
  });
