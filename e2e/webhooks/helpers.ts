import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { FirstAttempts, WEBHOOK_DELIVERY_QUEUE, bullPrefix, deliveryJobId, type DeliveryJob } from '@docgen/queue';
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

/** The stack's delivery queues (first attempts, and `webhook-deliveries` for the rest), read straight from Redis as the dispatcher sees them. */
export function deliveryQueue(stack: Stack) {
  const connection = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const queue = new Queue<DeliveryJob>(WEBHOOK_DELIVERY_QUEUE, { connection, prefix: bullPrefix(stack.env.REDIS_KEY_PREFIX!) });
  const firstAttempts = new FirstAttempts(connection, stack.env.REDIS_KEY_PREFIX!);
  const pending = async (eventId: string, endpointId: string) => {
    const jobId = deliveryJobId({ eventId, endpointId });
    return (await firstAttempts.pendingJobIds())!.has(jobId) || Boolean(await Job.fromId<DeliveryJob>(queue, jobId));
  };
  const latestEvent = (subjectId: string, type: string) =>
    stack.database.db.outboxEvent.findFirst({ where: { subjectId, type }, orderBy: { createdAt: 'desc' } });
  return {
    queue,
    connection,
    /** The BullMQ job (a retry, or a deferred first attempt) of the event `type` about `subjectId` (its job_id) to one endpoint. */
    jobFor: async (subjectId: string, type: string, endpointId: string): Promise<Job<DeliveryJob> | undefined> => {
      const event = await latestEvent(subjectId, type);
      return event ? Job.fromId<DeliveryJob>(queue, deliveryJobId({ eventId: event.id, endpointId })) : undefined;
    },
    /**
     * Whether a delivery of the latest event `type` about `subjectId` to the endpoint is still
     * to run: its first attempt is on the list or it has a job. Read in that order (an entry
     * leaves the list only once its job exists), a delivery moving on between the reads is seen.
     */
    isPending: async (subjectId: string, type: string, endpointId: string): Promise<boolean> => {
      const event = await latestEvent(subjectId, type);
      return Boolean(event) && (await pending(event!.id, endpointId));
    },
    /**
     * Whether the endpoint was ever given a delivery of the latest event `type` about
     * `subjectId`: it is still pending, or it ran, so its attempt is in the log (an entry or a
     * job is removed only after its attempt is written).
     */
    wasGivenJob: async (subjectId: string, type: string, endpointId: string): Promise<boolean> => {
      const event = await latestEvent(subjectId, type);
      if (!event) return false;
      if (await pending(event.id, endpointId)) return true;
      return (await stack.database.db.webhookDelivery.count({ where: { eventId: event.id, endpointId } })) > 0;
    },
    close: async () => {
      await queue.close();
      connection.disconnect();
    },
  };
}
