import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { countInWindow } from '@docgen/queue';
import { RenderInputError } from '@docgen/templating';
import type { Deadline } from './deadline';

const MAX_WAIT_MS = 2_000;

/** Takes one remote image fetch from the organisation's budget, waiting for the next window if need be. */
export type TakeImageFetch = () => Promise<void>;

/**
 * IMAGE_FETCHES_PER_ORG: remote image fetches one organisation's documents may make per
 * window, counted in Redis across every worker. Image URLs come from callers, so without a
 * bound the service could be aimed at a third-party host (a bulk job of 10,000 rows, each
 * naming it). Past the budget a fetch waits for the next window only when it is at most
 * MAX_WAIT_MS away (and the render's deadline allows); otherwise the document fails saying
 * which limit. It never waits longer: a waiting render holds a worker slot that another
 * organisation's document could use.
 */
export function imageFetchBudget(redis: Redis, keyPrefix: string, perWindow: number, windowMs: number) {
  return (organizationId: string, deadline?: Deadline): TakeImageFetch =>
    async () => {
      for (;;) {
        const { count, msLeft } = await countInWindow(redis, `${keyPrefix}imagefetches:${organizationId}`, windowMs);
        if (count <= perWindow) return;
        if (!deadline || msLeft > MAX_WAIT_MS || deadline.remainingMs() <= msLeft) {
          throw new RenderInputError(
            `This organisation's documents fetched more than ${perWindow} images in ${Math.round(windowMs / 1000)} s (IMAGE_FETCHES_PER_ORG); send fewer image URLs at once, or the same image as a data: URI`,
          );
        }
        await sleep(msLeft);
      }
    };
}
