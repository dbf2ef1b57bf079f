import { randomUUID } from 'node:crypto';
import type { Caller } from '@docgen/access';
import { HttpError, dependencyDown } from '../errors';
import type { SlidingWindowRateLimiter } from '../rate-limiter';

/** PREVIEW_RATE_LIMIT counts live previews in windows of this length. */
export const PREVIEW_RATE_WINDOW_MS = 60_000;

/**
 * Takes one live preview from the caller's own budget (PREVIEW_RATE_LIMIT a minute): a person
 * (session) or an API key, not the organisation, so one author typing never holds back another
 * or the organisation's programs. On top of the general rate limit, which still counts it.
 */
export async function takePreviewAllowance(limiter: SlidingWindowRateLimiter, caller: Caller, limit: number): Promise<void> {
  const subject = caller.session ? `preview:user:${caller.session.user.id}` : `preview:api-key:${caller.apiKey!.id}`;
  const decision = await limiter.consume(subject, limit, randomUUID()).catch(() => {
    throw dependencyDown('redis');
  });
  if (!decision.admitted) {
    throw new HttpError('rate_limited', `Too many previews: at most ${limit} a minute for each person or API key; try again in ${decision.resetSeconds} s.`, {
      headers: { 'Retry-After': String(decision.resetSeconds) },
    });
  }
}
