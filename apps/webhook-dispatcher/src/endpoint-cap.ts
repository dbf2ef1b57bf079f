import { DelayedError, type Job } from 'bullmq';
import { DeliveryJob } from '@docgen/queue';

/**
 * Delivery attempts in flight per endpoint in this dispatcher process. Taking and giving
 * back a slot are synchronous, so two jobs of one endpoint can never both see the last one.
 */
export class EndpointSlots {
  private readonly inFlight = new Map<string, number>();

  constructor(readonly perEndpoint: number) {}

  /** A release function, or undefined if the endpoint already has `perEndpoint` attempts running. */
  tryAcquire(endpointId: string): (() => void) | undefined {
    const current = this.inFlight.get(endpointId) ?? 0;
    if (current >= this.perEndpoint) return undefined;
    this.inFlight.set(endpointId, current + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(endpointId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(endpointId, left);
      else this.inFlight.delete(endpointId);
    };
  }

  count(endpointId: string): number {
    return this.inFlight.get(endpointId) ?? 0;
  }
}

const FIRST_DEFERRAL_MS = 250;
const LONGEST_DEFERRAL_MS = 5_000;

/**
 * How long a deferred job waits before it asks for a slot again: 250 ms, doubling with each
 * deferral of the same job up to 5 s, each ±50 % so deferred jobs do not come back in step.
 * A backlog behind one busy endpoint thus costs Redis a few moves per job every few seconds,
 * not a tight loop.
 */
export function deferralDelayMs(timesDeferredBefore: number, random: () => number = Math.random): number {
  const nominal = Math.min(LONGEST_DEFERRAL_MS, FIRST_DEFERRAL_MS * 2 ** Math.min(Math.max(0, timesDeferredBefore), 10));
  return Math.round(nominal * (0.5 + random()));
}

/**
 * Runs one delivery attempt if its endpoint has a free slot in this process. Otherwise the
 * job goes back to the delayed set and the processor throws DelayedError: BullMQ's
 * Job.moveToDelayed moves it with `skipAttempt`, so attemptsMade (and with it the attempt
 * number, the backoff and the 4-attempt budget) is untouched, and nothing is logged as an
 * attempt. Each pick-up still raises attemptsStarted, which is how deferrals are counted.
 * The attempt may hand its slot back early (once its request is over, before its outcome is
 * written): the slot bounds requests to the endpoint, not the bookkeeping after them.
 */
export async function withEndpointSlot<R>(
  job: Job<DeliveryJob>,
  token: string | undefined,
  slots: EndpointSlots,
  attempt: (releaseSlot: () => void) => Promise<R>,
  onDeferred?: (delayMs: number) => void,
): Promise<R> {
  const { endpointId } = DeliveryJob.parse(job.data);
  const acquired = slots.tryAcquire(endpointId);
  if (!acquired) {
    const delayMs = deferralDelayMs(job.attemptsStarted - job.attemptsMade - 1);
    await job.moveToDelayed(Date.now() + delayMs, token);
    onDeferred?.(delayMs);
    throw new DelayedError();
  }
  try {
    return await attempt(acquired); // releasing twice is a no-op
  } finally {
    acquired();
  }
}
