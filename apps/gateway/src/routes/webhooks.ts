import { WEBHOOK_EVENTS, WebhookDelivery as WebhookDeliveryBody, WebhookEndpoint, isUuid } from '@docgen/contracts';
import type { Database, WebhookDelivery, WebhookEndpoint as EndpointRow } from '@docgen/db';
import { sendTestEvent, type OutboxRelay } from '@docgen/documents';
import { generateWebhookSecret } from '@docgen/security';
import { HttpError } from '../errors';
import { requireCaller, type Caller } from '../middleware/authenticate';
import type { OperationHandler, OperationHandlers } from '../operations/operation-handler';
import { afterCursor, decodeCursor, newestFirst, toPage } from '../pagination';
import { checkWebhookUrl } from '../webhooks/check-webhook-url';

export interface WebhookRouteDeps {
  db: Database;
  /** Publishes the test event through the outbox, as every event is. */
  relay: OutboxRelay;
  allowPrivate: boolean;
}

const presentEndpoint = (endpoint: EndpointRow) =>
  WebhookEndpoint.parse({
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    is_uat: endpoint.isUat,
    created_at: endpoint.createdAt.toISOString(),
  });

const presentDelivery = (delivery: WebhookDelivery) =>
  WebhookDeliveryBody.parse({
    id: delivery.id,
    event: delivery.event,
    job_id: delivery.jobId,
    attempt: delivery.attempt,
    status: delivery.status,
    response_status: delivery.responseStatus,
    error: delivery.error,
    duration_ms: delivery.durationMs,
    created_at: delivery.createdAt.toISOString(),
  });

async function findEndpoint(db: Database, caller: Caller, id: string, isUat: boolean): Promise<EndpointRow> {
  const endpoint = isUuid(id) ? await db.webhookEndpoint.findFirst({ where: { id, organizationId: caller.organization.id, isUat, deletedAt: null } }) : null;
  if (!endpoint) throw new HttpError(404, 'Webhook endpoint not found');
  return endpoint;
}

type WebhookOperationId = 'createWebhook' | 'listWebhooks' | 'deleteWebhook' | 'testWebhook' | 'listWebhookDeliveries';

export function webhookHandlers({ db, relay, allowPrivate }: WebhookRouteDeps): OperationHandlers<WebhookOperationId> {
  const createWebhook: OperationHandler<'createWebhook'> = async ({ req, body, query: { is_uat: queryUat }, reply }) => {
    const caller = requireCaller(req);
    const url = await checkWebhookUrl(body.url, allowPrivate);
    const endpoint = await db.webhookEndpoint.create({
      data: {
        organizationId: caller.organization.id,
        isUat: body.is_uat ?? queryUat,
        url,
        description: body.description ?? null,
        events: body.events ? [...new Set(body.events)] : [...WEBHOOK_EVENTS],
        secret: generateWebhookSecret(),
      },
    });
    reply(201, { ...presentEndpoint(endpoint), secret: endpoint.secret });
  };

  const listWebhooks: OperationHandler<'listWebhooks'> = async ({ req, query, reply }) => {
    const caller = requireCaller(req);
    const rows = await db.webhookEndpoint.findMany({
      where: { organizationId: caller.organization.id, isUat: query.is_uat, deletedAt: null, ...afterCursor(decodeCursor(query.cursor)) },
      orderBy: newestFirst,
      take: query.limit + 1,
    });
    reply(200, toPage(rows, query.limit, presentEndpoint));
  };

  const deleteWebhook: OperationHandler<'deleteWebhook'> = async ({ req, params, query: { is_uat }, reply }) => {
    const endpoint = await findEndpoint(db, requireCaller(req), params.id, is_uat);
    await db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { deletedAt: new Date() } });
    reply(204);
  };

  const testWebhook: OperationHandler<'testWebhook'> = async ({ req, params, query: { is_uat }, reply }) => {
    const caller = requireCaller(req);
    const endpoint = await findEndpoint(db, caller, params.id, is_uat);
    const jobId = await sendTestEvent({ db, relay }, endpoint);
    reply(202, { job_id: jobId });
  };

  const listWebhookDeliveries: OperationHandler<'listWebhookDeliveries'> = async ({ req, params, query, reply }) => {
    const caller = requireCaller(req);
    const endpoint = await findEndpoint(db, caller, params.id, query.is_uat);
    const rows = await db.webhookDelivery.findMany({
      where: { endpointId: endpoint.id, ...afterCursor(decodeCursor(query.cursor)) },
      orderBy: newestFirst,
      take: query.limit + 1,
    });
    reply(200, toPage(rows, query.limit, presentDelivery));
  };

  return { createWebhook, listWebhooks, deleteWebhook, testWebhook, listWebhookDeliveries };
}
