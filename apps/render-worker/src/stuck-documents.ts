import type { Database } from '@docgen/db';
import type { Logger } from '@docgen/observability';
import { finishRendering } from './document-state';
import type { Announce } from './announce';

export const timeoutMessage = (timeoutMs: number) =>
  `Rendering took longer than ${Math.round(timeoutMs / 1000)} s; check the template for a broken expression`;

/**
 * The last line of "never stuck": a document still "rendering" well past the render
 * timeout (its job lost, not merely waiting for a stalled-job retry) is failed with the
 * timeout message. The state change is guarded, so a late finish cannot announce twice.
 */
export function watchStuckDocuments(deps: { db: Database; announce: Announce; logger: Logger }, renderTimeoutMs: number, graceMs: number) {
  const check = async () => {
    const stuck = await deps.db.document.findMany({
      where: { status: 'rendering', renderingStartedAt: { lt: new Date(Date.now() - renderTimeoutMs - graceMs) } },
      select: { id: true, generation: true },
      take: 100,
    });
    for (const doc of stuck) {
      const finished = await finishRendering(deps.db, doc, { status: 'failed', errorMessage: timeoutMessage(renderTimeoutMs) });
      if (finished) deps.logger.warn({ documentId: doc.id }, 'document stuck in rendering; failed');
      await deps.announce(finished);
    }
  };
  const timer = setInterval(() => {
    check().catch((error: unknown) => deps.logger.warn({ err: error }, 'stuck-document check failed'));
  }, Math.max(1_000, Math.min(graceMs, 10_000)));
  timer.unref();
  return () => clearInterval(timer);
}
