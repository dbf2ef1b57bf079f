import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { WEBHOOK_DELIVERY_QUEUE, bullPrefix, deliveryJobId, type DeliveryJob } from '@docgen/queue';
import type { ApiClient, Stack } from '@docgen/testing';
import { eventually } from '../support';

export { eventually };

export type DeliveryLogEntry = { event: string; job_id: string; attempt: number; status: string; response_status: number | null; error: string | null };

export const deliveryLog = async (client: ApiClient, endpointId: string) =>
  (await client.call('GET', `/api/v1/webhooks/${endpointId}/deliveries?limit=100`)).body.items as DeliveryLogEntry[];

/** The log once it has `count` entries and none is pending (every attempt so far has ended). */
export const settledDeliveryLog = (client: ApiClient, endpointId: string, count: number, timeoutMs?: number) =>
  eventually(
    async () => {
      const log = await deliveryLog(client, endpointId);
      return log.length >= count && log.every((entry) => entry.status !== 'pending') && log;
    },
    `${count} settled attempts for endpoint ${endpointId}`,
    timeoutMs,
  );

/** The stack's webhook-deliveries queue, read straight from Redis as the dispatcher sees it. */
export function deliveryQueue(stack: Stack) {
  const connection = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const queue = new Queue<DeliveryJob>(WEBHOOK_DELIVERY_QUEUE, { connection, prefix: bullPrefix(stack.env.REDIS_KEY_PREFIX!) });
  return {
    queue,
    connection,
    /** The delivery job of the event `type` about `subjectId` (its job_id) to one endpoint, once it has been fanned out. */
    jobFor: async (subjectId: string, type: string, endpointId: string): Promise<Job<DeliveryJob> | undefined> => {
      const event = await stack.database.db.outboxEvent.findFirst({ where: { subjectId, type }, orderBy: { createdAt: 'desc' } });
      return event ? Job.fromId<DeliveryJob>(queue, deliveryJobId({ eventId: event.id, endpointId })) : undefined;
    },
    /**
     * Whether the endpoint was ever given a delivery job for the latest event `type` about
     * `subjectId`: the job is still in Redis, or it ran, so its attempt is in the log (a job is
     * removed once it completes, and only after its attempt is written). Read in that order, a
     * job that completes between the two reads is still seen.
     */
    wasGivenJob: async (subjectId: string, type: string, endpointId: string): Promise<boolean> => {
      const event = await stack.database.db.outboxEvent.findFirst({ where: { subjectId, type }, orderBy: { createdAt: 'desc' } });
      if (!event) return false;
      if (await Job.fromId<DeliveryJob>(queue, deliveryJobId({ eventId: event.id, endpointId }))) return true;
      return (await stack.database.db.webhookDelivery.count({ where: { eventId: event.id, endpointId } })) > 0;
    },
    close: async () => {
      await queue.close();
      connection.disconnect();
    },
  };
}
