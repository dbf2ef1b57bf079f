import { DelayedError, type Job } from 'bullmq';
import { DeliveryJob } from '@docgen/queue';
import { AttemptNotMadeError } from './deliver';

/**
 * Delivery attempts in flight per endpoint, and per organisation, in this dispatcher process.
 * The organisation's cap keeps one organisation with many slow endpoints from holding the
 * whole pool (each endpoint alone stays within its own cap). Taking and giving back a slot
 * are synchronous, so two attempts can never both see the last one.
 */
export class EndpointSlots {
  private readonly inFlight = new Map<string, number>();

  constructor(
    readonly perEndpoint: number,
    readonly perOrganization = Infinity,
  ) {}

  /**
   * A release function, or undefined if the endpoint already has `perEndpoint` attempts
   * running, or its organisation `perOrganization` (an endpoint whose organisation is not
   * known, deleted since, counts for itself alone).
   */
  tryAcquire(endpointId: string, organizationId?: string): (() => void) | undefined {
    const endpoint = `endpoint:${endpointId}`;
    const organization = organizationId ? `organization:${organizationId}` : undefined;
    if (this.count(endpointId) >= this.perEndpoint) return undefined;
    if (organization && (this.inFlight.get(organization) ?? 0) >= this.perOrganization) return undefined;
    const held = organization ? [endpoint, organization] : [endpoint];
    for (const key of held) this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const key of held) {
        const left = (this.inFlight.get(key) ?? 1) - 1;
        if (left > 0) this.inFlight.set(key, left);
        else this.inFlight.delete(key);
      }
    };
  }

  count(endpointId: string): number {
    return this.inFlight.get(`endpoint:${endpointId}`) ?? 0;
  }

  countForOrganization(organizationId: string): number {
    return this.inFlight.get(`organization:${organizationId}`) ?? 0;
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
 * Runs one delivery attempt if its endpoint (and its organisation) has a free slot in this process. Otherwise the
 * job goes back to the delayed set and the processor throws DelayedError: BullMQ's
 * Job.moveToDelayed moves it with `skipAttempt`, so attemptsMade (and with it the attempt
 * number, the backoff and the 4-attempt budget) is untouched, and nothing is logged as an
 * attempt. Each pick-up still raises attemptsStarted, which is how deferrals are counted.
 * The attempt may hand its slot back early (once its request is over, before its outcome is
 * written): the slot bounds requests to the endpoint, not the bookkeeping after them. An
 * attempt that could not be started (AttemptNotMadeError: nothing sent) goes back the same way.
 */
export async function withEndpointSlot<R>(
  job: Job<DeliveryJob>,
  token: string | undefined,
  slots: EndpointSlots,
  attempt: (releaseSlot: () => void) => Promise<R>,
  onDeferred?: (delayMs: number) => void,
  organizationOf: (endpointId: string) => Promise<string | undefined> = async () => undefined,
): Promise<R> {
  const { endpointId } = DeliveryJob.parse(job.data);
  const deferred = async () => {
    const delayMs = deferralDelayMs(job.attemptsStarted - job.attemptsMade - 1);
    await job.moveToDelayed(Date.now() + delayMs, token);
    return delayMs;
  };
  const acquired = slots.tryAcquire(endpointId, await organizationOf(endpointId));
  if (!acquired) {
    onDeferred?.(await deferred());
    throw new DelayedError();
  }
  try {
    return await attempt(acquired); // releasing twice is a no-op
  } catch (error) {
    if (!(error instanceof AttemptNotMadeError)) throw error;
    await deferred();
    throw new DelayedError();
  } finally {
    acquired();
  }
}
