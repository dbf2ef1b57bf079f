import { WEBHOOK_EVENTS } from '@docgen/contracts';
import type { Database, Scope, WebhookEndpoint } from '@docgen/db';
import { generateWebhookSecret } from '@docgen/security';
import { checkWebhookUrl } from './check-webhook-url';

/** Registers an endpoint after checking its URL; it receives every event unless `events` narrows it. */
export async function createEndpoint(
  db: Database,
  scope: Scope,
  input: { url: string; description?: string | null; events?: readonly (typeof WEBHOOK_EVENTS)[number][]; allowPrivate: boolean },
): Promise<WebhookEndpoint> {
  const url = await checkWebhookUrl(input.url, input.allowPrivate);
  return db.webhookEndpoint.create({
    data: {
      organizationId: scope.organizationId,
      isUat: scope.isUat,
      url,
      description: input.description ?? null,
      events: input.events ? [...new Set(input.events)] : [...WEBHOOK_EVENTS],
      secret: generateWebhookSecret(),
    },
  });
}
