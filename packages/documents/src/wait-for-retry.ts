import type { Database } from '@docgen/db';
import { sameAttempt, type Attempt } from './attempt';

/** rendering → queued while the document waits for BullMQ to retry it (after a retryable failure). */
export async function waitForRetry(db: Database, doc: Attempt): Promise<boolean> {
  const { count } = await db.document.updateMany({ where: sameAttempt(doc, 'rendering'), data: { status: 'queued' } });
  return count === 1;
}
