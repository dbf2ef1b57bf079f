import { Router } from 'express';
import {
  CreateWebhookBody,
  CreatedWebhookEndpoint,
  EnvironmentQuery,
  WEBHOOK_EVENTS,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointPage,
  WebhookListQuery,
  WebhookTestAccepted,
} from '@docgen/contracts';
import type { Database, WebhookDelivery, WebhookEndpoint as EndpointRow } from '@docgen/db';
import { sendTestEvent, type OutboxRelay } from '@docgen/documents';
import { generateWebhookSecret } from '@docgen/security';
import { HttpError } from '../errors';
import { requireCaller, type Caller } from '../middleware/authenticate';
import { afterCursor, decodeCursor, newestFirst, toPage } from '../pagination';
import { checkWebhookUrl } from '../webhooks/check-webhook-url';
import { isUuid } from '../ids';

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

const presentDelivery = (delivery: WebhookDelivery) => ({
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

export function webhookRoutes({ db, relay, allowPrivate }: WebhookRouteDeps): Router {
  const router = Router();

  router.post('/webhooks', async (req, res) => {
    const caller = requireCaller(req);
    if (!req.is('application/json')) throw new HttpError(415, 'Send the endpoint as application/json');
    const body = CreateWebhookBody.parse(req.body);
    const { is_uat: queryUat } = EnvironmentQuery.parse(req.query);
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
    res.status(201).json(CreatedWebhookEndpoint.parse({ ...presentEndpoint(endpoint), secret: endpoint.secret }));
  });

  router.get('/webhooks', async (req, res) => {
    const caller = requireCaller(req);
    const query = WebhookListQuery.parse(req.query);
    const rows = await db.webhookEndpoint.findMany({
      where: { organizationId: caller.organization.id, isUat: query.is_uat, deletedAt: null, ...afterCursor(decodeCursor(query.cursor)) },
      orderBy: newestFirst,
      take: query.limit + 1,
    });
    res.json(WebhookEndpointPage.parse(toPage(rows, query.limit, presentEndpoint)));
  });

  router.delete('/webhooks/:id', async (req, res) => {
    const { is_uat } = EnvironmentQuery.parse(req.query);
    const endpoint = await findEndpoint(db, requireCaller(req), req.params.id, is_uat);
    await db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { deletedAt: new Date() } });
    res.status(204).end();
  });

  router.post('/webhooks/:id/test', async (req, res) => {
    const caller = requireCaller(req);
    const { is_uat } = EnvironmentQuery.parse(req.query);
    const endpoint = await findEndpoint(db, caller, req.params.id, is_uat);
    const jobId = await sendTestEvent({ db, relay }, endpoint);
    res.status(202).json(WebhookTestAccepted.parse({ job_id: jobId }));
  });

  router.get('/webhooks/:id/deliveries', async (req, res) => {
    const caller = requireCaller(req);
    const query = WebhookListQuery.parse(req.query);
    const endpoint = await findEndpoint(db, caller, req.params.id, query.is_uat);
    const rows = await db.webhookDelivery.findMany({
      where: { endpointId: endpoint.id, ...afterCursor(decodeCursor(query.cursor)) },
      orderBy: newestFirst,
      take: query.limit + 1,
    });
    res.json(WebhookDeliveryPage.parse(toPage(rows, query.limit, presentDelivery)));
  });

  return router;
}
