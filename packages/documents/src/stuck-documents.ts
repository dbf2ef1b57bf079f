import type { Queue } from 'bullmq';
import type { Database } from '@docgen/db';
import type { Logger } from '@docgen/observability';
import { RENDER_JOB_OPTIONS, inFairBacklogs, pendingRenderJobIds, renderJobId, type RenderJob } from '@docgen/queue';
import type { Announce } from './announce';
import { finishRendering } from './finish-rendering';
import { queueNewGeneration } from './queue-new-generation';

/** A render attempt that ran out of time, in the words its document's `error_message` uses. */
export const timeoutMessage = (timeoutMs: number) => `Rendering took longer than ${Math.round(timeoutMs / 1000)} s; check the template for a broken expression`;

/**
 * When the stuck-document sweep acts. A live worker ends its own attempt at
 * RENDER_TIMEOUT_MS (its deadline), so a document still rendering `graceMs` later (room for
 * that worker's finishing transaction, event-loop lag and clock skew between workers) has
 * lost its worker.
 */
export function stuckDocumentSweepTiming(renderTimeoutMs: number) {
  return {
    renderTimeoutMs,
    graceMs: 5_000,
    intervalMs: Math.min(5_000, Math.max(1_000, Math.round(renderTimeoutMs / 10))),
    /** Attempts a document gets, counted over its re-queues too: as many as BullMQ gives a job. */
    maxAttempts: RENDER_JOB_OPTIONS.attempts ?? 3,
  };
}

export type StuckDocumentSweepTiming = ReturnType<typeof stuckDocumentSweepTiming>;

export interface StuckDocumentSweepDeps {
  db: Database;
  queue: Queue<RenderJob>;
  announce: Announce;
  logger: Logger;
}

/** Job states in which a job will still run the document. */
const PENDING = new Set(['waiting', 'delayed', 'prioritized', 'active', 'waiting-children']);

/**
 * The stuck-document sweep, the last line of "never stuck", run by every worker:
 * - a document still rendering RENDER_TIMEOUT_MS + grace after its attempt started lost
 *   its worker (killed, or frozen): it is queued again under a new generation, at once
 *   rather than when BullMQ notices the dead worker's lock expired; once it has had its
 *   attempts it is failed with the timeout message instead;
 * - a queued document whose job is gone (not in its organisation's fair-share backlog, nor
 *   on the render list, nor in BullMQ) gets a new one: one queued again after an attempt
 *   (awaiting a retry, or re-queued here), or one whose gateway died between writing it
 *   and queueing its job.
 * Every change is conditional on the attempt the sweep saw (same generation, status and
 * render_attempts), as is the worker's own finish, so exactly one of them takes effect:
 * a late finish cannot overwrite the sweep's outcome or announce twice, nor can the sweep
 * undo a finish or a newer attempt.
 */
export async function sweepStuckDocuments(deps: StuckDocumentSweepDeps, timing: StuckDocumentSweepTiming): Promise<void> {
  const cutoff = new Date(Date.now() - timing.renderTimeoutMs - timing.graceMs);
  // Whole rows: failing one publishes its document.failed event, which presents the document.
  const overdue = await deps.db.document.findMany({
    where: { status: 'rendering', renderingStartedAt: { lt: cutoff } },
    orderBy: { renderingStartedAt: 'asc' },
    take: 100,
  });
  for (const doc of overdue) {
    const log = deps.logger.child({ documentId: doc.id, generation: doc.generation, renderAttempts: doc.renderAttempts });
    if (doc.renderAttempts < timing.maxAttempts) {
      if (await queueNewGeneration(deps.db, deps.queue, doc, 'rendering'))
        log.warn('document still rendering past the render timeout (its worker stopped); queued again');
      continue;
    }
    const finished = await finishRendering(deps.db, doc, { status: 'failed', errorMessage: timeoutMessage(timing.renderTimeoutMs) });
    if (finished) log.warn('document still rendering past the render timeout after its last attempt; failed');
    await deps.announce(finished);
  }

  // Documents waiting their turn in an organisation's backlog are many under load and come
  // first by age: pages of them are skipped (one Redis round trip a page), so a lost job of
  // another organisation is still reached behind thousands of waiting rows.
  let after: { updatedAt: Date; id: string } | undefined;
  for (let page = 0; page < QUEUED_PAGES; page++) {
    const waiting = await deps.db.document.findMany({
      where: {
        status: 'queued',
        updatedAt: { lt: cutoff },
        ...(after ? { OR: [{ updatedAt: { gt: after.updatedAt } }, { updatedAt: after.updatedAt, id: { gt: after.id } }] } : {}),
      },
      select: { id: true, generation: true, renderAttempts: true, organizationId: true, updatedAt: true },
      orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
      take: QUEUED_PAGE_SIZE,
    });
    if (waiting.length === 0) break;
    after = waiting[waiting.length - 1];
    const jobs = waiting.map((doc) => ({ documentId: doc.id, generation: doc.generation, organizationId: doc.organizationId }));
    // In the order a job travels (backlog, render list, then BullMQ for a retry; never back),
    // so a job seen in none of them is not one that moved between two looks.
    const inBacklog = await inFairBacklogs(deps.queue, jobs);
    const onRenderList = await pendingRenderJobIds(deps.queue);
    for (const [index, doc] of waiting.entries()) {
      if (inBacklog[index] || onRenderList.has(renderJobId(jobs[index]!))) continue;
      const state = await deps.queue.getJobState(renderJobId(jobs[index]!));
      if (PENDING.has(state)) continue;
      if (await queueNewGeneration(deps.db, deps.queue, doc, 'queued')) {
        deps.logger.warn({ documentId: doc.id, generation: doc.generation, jobState: state }, 'document queued without a render job; queued again');
      }
    }
  }
}

/** Queued documents looked at per sweep: pages of this many, at most this many pages. */
const QUEUED_PAGE_SIZE = 500;
const QUEUED_PAGES = 20;
