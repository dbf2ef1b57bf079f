import type { Worker } from 'bullmq';
import { withDeadline } from './with-deadline';
import type { ServiceContext } from './run-service';

/**
 * A BullMQ consumer's errors are logged and, on shutdown, it stops taking jobs first and
 * gets until SHUTDOWN_TIMEOUT_MS (less 2 s for the steps after it) to finish the ones it
 * has; a job still running then is handed back by its lock.
 */
export function superviseWorker({ config, logger, shutdown }: ServiceContext<{ SHUTDOWN_TIMEOUT_MS: number }>, name: string, worker: Worker): Worker {
  worker.on('error', (error) => logger.warn({ err: error }, `${name} queue error`));
  shutdown.register(`${name} worker`, () => withDeadline(worker.close(), config.SHUTDOWN_TIMEOUT_MS - 2_000));
  return worker;
}
