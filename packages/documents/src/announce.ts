import type { Queue } from 'bullmq';
import type { Logger } from '@docgen/observability';
import type { BulkAssemblyJob } from '@docgen/queue';
import { queueAssembly } from './bulk-jobs/bulk-assembly-jobs';
import type { OutboxRelay } from './events/outbox-relay';
import type { Finished } from './finish-rendering';

export type Announce = (finished: Finished | undefined) => Promise<void>;

/**
 * What follows a finished document: its completion event goes out, or — for the last row
 * of a bulk job — the ZIP's assembly is queued. Both are best effort here; the outbox
 * sweep and the finished-bulk-job sweep catch whatever a crash or a Redis outage dropped.
 */
export function createAnnouncer(deps: { relay: OutboxRelay; bulkAssembly: Queue<BulkAssemblyJob>; logger: Logger }): Announce {
  return async (finished) => {
    if (!finished) return;
    await deps.relay.publishSoon(finished.event);
    if (finished.bulkJobDone) {
      const bulkJobId = finished.bulkJobDone;
      await queueAssembly(deps.bulkAssembly, bulkJobId).catch((error: unknown) =>
        deps.logger.warn({ err: error, bulkJobId }, 'bulk assembly deferred to the finished-bulk-job sweep'),
      );
    }
  };
}
