import { WebhookEvents, type WebhookEvent } from './index.js';

const event = (job_id: string, name: 'document.ready' | 'document.failed', occurred_at: string) =>
  ({ job_id, event: name, occurred_at, data: { id: job_id } }) as unknown as WebhookEvent;
const settled = (promise: Promise<unknown>) => Promise.race([promise.then(() => true), new Promise((resolve) => setImmediate(() => resolve(false)))]);

describe('WebhookEvents', () => {
  it('hands an event to the wait for its job, also when it came before the wait started', async () => {
    const events = new WebhookEvents();
    const waiting = events.next('a');
    events.push(event('b', 'document.ready', '2026-11-24T10:00:00.000Z'));
    expect(await settled(waiting)).toBe(false);
    events.push(event('a', 'document.ready', '2026-11-24T10:00:00.000Z'));
    expect(await waiting).toMatchObject({ job_id: 'a', event: 'document.ready' });
    expect(await events.next('b')).toMatchObject({ job_id: 'b' });
  });

  it('ignores an event older than notBefore (the failure an idempotent retry replaces)', async () => {
    const events = new WebhookEvents();
    events.push(event('a', 'document.failed', '2026-11-24T10:00:00.000Z'));
    const retry = events.next('a', undefined, '2026-11-24T10:00:05.000Z');
    expect(await settled(retry)).toBe(false);
    events.push(event('a', 'document.ready', '2026-11-24T10:00:06.000Z'));
    expect(await retry).toMatchObject({ event: 'document.ready' });
  });

  it('forgets a wait whose signal aborts, and keeps only the newest events', async () => {
    const events = new WebhookEvents(2);
    const controller = new AbortController();
    void events.next('gone', controller.signal);
    controller.abort();
    expect((events as unknown as { waiters: Map<string, unknown> }).waiters.size).toBe(0);
    for (const id of ['x', 'y', 'z']) events.push(event(id, 'document.ready', '2026-11-24T10:00:00.000Z'));
    expect(await settled(events.next('x'))).toBe(false);
    expect(await settled(events.next('z'))).toBe(true);
  });
});
