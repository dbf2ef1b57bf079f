import type { WebhookEvent } from './webhooks.js';

/**
 * Hands verified webhook events to the waits that want them, so generateAndWait can
 * finish the moment `document.ready` arrives instead of at its next poll. Recent events
 * are kept (the webhook can beat the 202 of the request that caused it).
 */
export class WebhookEvents {
  private readonly recent = new Map<string, WebhookEvent>();
  private readonly waiters = new Map<string, Set<(event: WebhookEvent) => void>>();

  constructor(private readonly keep = 1000) {}

  /** Call from your receiver with each verified event. */
  push(event: WebhookEvent): void {
    this.recent.delete(event.job_id);
    this.recent.set(event.job_id, event);
    if (this.recent.size > this.keep) this.recent.delete(this.recent.keys().next().value!);
    for (const wake of this.waiters.get(event.job_id) ?? []) wake(event);
    this.waiters.delete(event.job_id);
  }

  /** The next event about `jobId` (or one that already came); never rejects, so race it with something that does. */
  next(jobId: string, signal?: AbortSignal): Promise<WebhookEvent> {
    const seen = this.recent.get(jobId);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const wake = (event: WebhookEvent) => resolve(event);
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
