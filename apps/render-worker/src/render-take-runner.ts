import { UnrecoverableError, type Queue } from 'bullmq';
import type { Logger } from '@docgen/observability';
import {
  ListRunner,
  MAX_RENDER_TAKES,
  RENDER_JOB_OPTIONS,
  queueRenderRetry,
  renderJobOfEntry,
  type ListTaker,
  type RenderJob,
  type TakenEntry,
} from '@docgen/queue';
import type { RenderTake } from './process-render-job';

export interface RenderTakeRunnerDeps {
  taker: ListTaker;
  /** The `render` queue: where the retry after a failed first take is scheduled. */
  retries: Queue<RenderJob>;
  /** Renders taken at once (RENDER_CONCURRENCY). */
  concurrency: number;
  /** RENDER_LOCK_MS: other workers give this one's renders back after this long without a beat. */
  heartbeatMs: number;
  render: (take: RenderTake) => Promise<string>;
  /** Called at each take: the list has room for the next organisation's document. */
  onTake: () => void;
  logger: Logger;
}

/**
 * Renders the documents on the render list (@docgen/queue's render-takes), up to
 * `concurrency` at once. A first attempt that fails for a reason worth retrying becomes a
 * BullMQ job with the attempts left; an entry leaves this worker's list only once the
 * document's outcome is written or that job exists.
 */
export class RenderTakeRunner {
  private readonly runner: ListRunner;

  constructor(private readonly deps: RenderTakeRunnerDeps) {
    this.runner = new ListRunner({
      taker: deps.taker,
      concurrency: deps.concurrency,
      heartbeatMs: deps.heartbeatMs,
      name: 'renders',
      logger: deps.logger,
      run: (entry) => this.run(entry),
    });
  }

  start(): void {
    this.runner.start();
  }

  /** Takes no more, waits up to `drainMs` for the renders in flight, then gives back what this worker still holds (ListRunner.stop). */
  stop(drainMs?: number): Promise<void> {
    return this.runner.stop(drainMs);
  }

  private async run(entry: TakenEntry): Promise<boolean> {
    this.deps.onTake();
    const job = renderJobOfEntry(entry);
    if (!job) {
      this.deps.logger.warn({ entry: entry.raw.slice(0, 200) }, 'render entry not understood; dropped');
      return true;
    }
    const takes = entry.takenBefore + 1;
    if (takes > MAX_RENDER_TAKES) {
      this.deps.logger.warn(
        { documentId: job.documentId, generation: job.generation, takes },
        'document taken again after its workers stopped too often; not rendered again (the stuck-document sweep fails it)',
      );
      return true;
    }
    try {
      await this.deps.render({ ...job, takes, attemptsMade: 0, attemptsAllowed: RENDER_JOB_OPTIONS.attempts ?? 1 });
      return true;
    } catch (error) {
      if (error instanceof UnrecoverableError) return true; // the document failed, and said why
      // renderDocument logged the failure and put the document back to queued for its retry
      return this.runner.untilDone(() => queueRenderRetry(this.deps.retries, job, takes), 'render retry not scheduled');
    }
  }
}
