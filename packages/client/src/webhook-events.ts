import type { WebhookEvent } from './webhooks.js';

/**
 * Hands verified webhook events to the waits that want them, so generateAndWait can
 * finish the moment `document.ready` arrives instead of at its next poll. Recent events
 * are kept (the webhook can beat the 202 of the request that caused it).
 */
export class WebhookEvents {
  private readonly recent = new Map<string, WebhookEvent>();
  /** Each waiter answers whether it took the event. */
  private readonly waiters = new Map<string, Set<(event: WebhookEvent) => boolean>>();

  constructor(private readonly keep = 1000) {}

  /** Call from your receiver with each verified event. */
  push(event: WebhookEvent): void {
    this.recent.delete(event.job_id);
    this.recent.set(event.job_id, event);
    if (this.recent.size > this.keep) this.recent.delete(this.recent.keys().next().value!);
    const waiting = this.waiters.get(event.job_id);
    for (const wake of waiting ?? []) if (wake(event)) waiting!.delete(wake);
    if (waiting?.size === 0) this.waiters.delete(event.job_id);
  }

  /**
   * The next event about `jobId` that occurred at or after `notBefore` (or one that already
   * came); never rejects, so race it with something that does. `notBefore` keeps the
   * `document.failed` of an earlier attempt from ending the wait for its idempotent retry.
   */
  next(jobId: string, signal?: AbortSignal, notBefore?: string): Promise<WebhookEvent> {
    const since = notBefore ? Date.parse(notBefore) : -Infinity;
    const current = (event: WebhookEvent) => !(Date.parse(event.occurred_at) < since);
    const seen = this.recent.get(jobId);
    if (seen && current(seen)) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const wake = (event: WebhookEvent) => {
        if (!current(event)) return false;
        resolve(event);
        return true;
      };
      const set = this.waiters.get(jobId) ?? new Set();
      set.add(wake);
      this.waiters.set(jobId, set);
      signal?.addEventListener(
        'abort',
        () => {
          set.delete(wake);
          if (set.size === 0 && this.waiters.get(jobId) === set) this.waiters.delete(jobId);
        },
        { once: true },
      );
    });
  }
}
