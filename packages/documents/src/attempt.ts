import type { Document } from '@docgen/db';

/** One render attempt of a document: every change it makes is conditional on still being it. */
export type Attempt = Pick<Document, 'id' | 'generation' | 'renderAttempts'>;

/** The row as long as it is still in `status` for this attempt (nobody finished, re-queued or took it over). */
export const sameAttempt = (doc: Attempt, status: 'rendering' | 'queued' | 'failed') => ({
  id: doc.id,
  generation: doc.generation,
  renderAttempts: doc.renderAttempts,
  status,
});
