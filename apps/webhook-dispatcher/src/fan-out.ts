import type { Job, Queue } from 'bullmq';
import type { Database } from '@docgen/db';
import { EventJob, deliveryJobId, type DeliveryJob } from '@docgen/queue';

/** 1 try + 3 retries, waiting 1×, 2×, 4× the base between them. */
export const deliveryJobOptions = (retryBaseMs: number) => ({
  attempts: 4,
  backoff: { type: 'exponential' as const, delay: retryBaseMs },
});

/**
 * Turns one event into one delivery job per subscribed endpoint of its organisation and
 * environment. The job id (event, endpoint) makes a re-run of this job add nothing twice.
 */
export async function fanOut(job: Job<EventJob>, deps: { db: Database; deliveries: Queue<DeliveryJob>; retryBaseMs: number }): Promise<number> {
  const { eventId, endpointId } = EventJob.parse(job.data);
  const event = await deps.db.outboxEvent.findUnique({ where: { id: eventId } });
  if (!event) return 0;
  const endpoints = await deps.db.webhookEndpoint.findMany({
    where: endpointId
      ? { id: endpointId, deletedAt: null }
      : { organizationId: event.organizationId, isUat: event.isUat, deletedAt: null, events: { has: event.type } },
    select: { id: true },
  });
  await deps.deliveries.addBulk(
    endpoints.map((endpoint) => {
      const data = { eventId, endpointId: endpoint.id };
      return { name: event.type, data, opts: { jobId: deliveryJobId(data), ...deliveryJobOptions(deps.retryBaseMs) } };
    }),
  );
  return endpoints.length;
}
