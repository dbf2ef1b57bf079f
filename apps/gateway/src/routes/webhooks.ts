import { WebhookDelivery as WebhookDeliveryBody, WebhookEndpoint } from '@docgen/contracts';
import type { Database, WebhookDelivery, WebhookEndpoint as EndpointRow } from '@docgen/db';
import { sendTestEvent, type OutboxRelay } from '@docgen/documents';
import * as webhooks from '@docgen/webhooks';
import { requireCaller } from '../middleware/authenticate';
import type { OperationHandler, OperationHandlers } from '../operations/operation-handler';
import { decodeCursor, toPage } from '../pagination';

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

type WebhookOperationId = 'createWebhook' | 'listWebhooks' | 'deleteWebhook' | 'testWebhook' | 'listWebhookDeliveries';

export function webhookHandlers({ db, relay, allowPrivate }: WebhookRouteDeps): OperationHandlers<WebhookOperationId> {
  const createWebhook: OperationHandler<'createWebhook'> = async ({ req, body, query: { is_uat: queryUat }, reply }) => {
    const scope = { organizationId: requireCaller(req).organization.id, isUat: body.is_uat ?? queryUat };
    const endpoint = await webhooks.createEndpoint(db, scope, { url: body.url, description: body.description, events: body.events, allowPrivate });
    reply(201, { ...presentEndpoint(endpoint), secret: endpoint.secret });
  };

  const listWebhooks: OperationHandler<'listWebhooks'> = async ({ req, query, reply }) => {
    const scope = { organizationId: requireCaller(req).organization.id, isUat: query.is_uat };
    const rows = await webhooks.listEndpoints(db, scope, { after: decodeCursor(query.cursor), take: query.limit + 1 });
    reply(200, toPage(rows, query.limit, presentEndpoint));
  };

  const deleteWebhook: OperationHandler<'deleteWebhook'> = async ({ req, params, query: { is_uat }, reply }) => {
    await webhooks.deleteEndpoint(db, { organizationId: requireCaller(req).organization.id, isUat: is_uat }, params.id);
    reply(204);
  };

  const testWebhook: OperationHandler<'testWebhook'> = async ({ req, params, query: { is_uat }, reply }) => {
    const endpoint = await webhooks.findEndpoint(db, { organizationId: requireCaller(req).organization.id, isUat: is_uat }, params.id);
    // The event goes out through the outbox, as every event does (packages/documents).
    const jobId = await sendTestEvent({ db, relay }, endpoint);
    reply(202, { job_id: jobId });
  };

  const listWebhookDeliveries: OperationHandler<'listWebhookDeliveries'> = async ({ req, params, query, reply }) => {
    const scope = { organizationId: requireCaller(req).organization.id, isUat: query.is_uat };
    const rows = await webhooks.listDeliveries(db, scope, params.id, { after: decodeCursor(query.cursor), take: query.limit + 1 });
    reply(200, toPage(rows, query.limit, presentDelivery));
  };

  return { createWebhook, listWebhooks, deleteWebhook, testWebhook, listWebhookDeliveries };
}
