import { randomUUID } from 'node:crypto';
import type { Database, Prisma } from '@docgen/db';
import { queueUnavailable } from '../errors';
import { buildEventPayload } from './envelope';
import type { OutboxRelay } from './outbox-relay';

/**
 * A `webhook.test` event for one endpoint, through the outbox like every other event; the
 * subscription rule addresses it to the endpoint its payload names, and no other. The caller
 * has just checked the endpoint (organisation, environment, not deleted: what the rule checks),
 * so it is published straight to it, and only Redis can make it fail. If its delivery cannot be queued now, the event is taken back and
 * `queue_unavailable` thrown, so the caller can try again. Returns the event's job id.
 */
export async function sendTestEvent(
  deps: { db: Database; relay: OutboxRelay },
  endpoint: { id: string; organizationId: string; isUat: boolean },
): Promise<string> {
  const jobId = randomUUID();
  const payload = buildEventPayload('webhook.test', jobId, new Date(), { endpoint_id: endpoint.id, message: 'A test event from docgen' });
  const event = await deps.db.outboxEvent.create({
    data: {
      type: 'webhook.test',
      organizationId: endpoint.organizationId,
      isUat: endpoint.isUat,
      subjectId: jobId,
      payload: payload as Prisma.InputJsonObject,
    },
  });
  try {
    await deps.relay.publish({ ...event, endpointIds: [endpoint.id] });
  } catch (error) {
    await deps.db.outboxEvent.delete({ where: { id: event.id } });
    throw Object.assign(queueUnavailable(), { cause: error });
  }
  return jobId;
}
