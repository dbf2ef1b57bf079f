import type { Job } from 'bullmq';
import type { DeliveryJob } from '@docgen/queue';
import { deferralDelayMs, EndpointSlots, withEndpointSlot } from '../src/endpoint-cap';

describe('EndpointSlots and deferralDelayMs', () => {
  it('gives an endpoint at most its cap of slots and takes each back once', () => {
    const slots = new EndpointSlots(2);
    const first = slots.tryAcquire('a')!;
    const second = slots.tryAcquire('a')!;
    expect(slots.tryAcquire('a')).toBeUndefined();
    expect(slots.tryAcquire('b')).toBeDefined();
    first();
    first();
    expect(slots.count('a')).toBe(1);
    expect(slots.tryAcquire('a')).toBeDefined();
    expect(slots.tryAcquire('a')).toBeUndefined();
    second();
    expect(slots.count('a')).toBe(1);
  });

  it('gives an organisation at most its cap across its endpoints, and each endpoint still its own', () => {
    const slots = new EndpointSlots(2, 3);
    const held = [slots.tryAcquire('a', 'org-1')!, slots.tryAcquire('a', 'org-1')!, slots.tryAcquire('b', 'org-1')!];
    expect(slots.tryAcquire('b', 'org-1')).toBeUndefined();
    expect(slots.tryAcquire('c', 'org-1')).toBeUndefined();
    expect(slots.countForOrganization('org-1')).toBe(3);
    // Another organisation, and an endpoint whose organisation is unknown, are not held back.
    expect(slots.tryAcquire('d', 'org-2')).toBeDefined();
    expect(slots.tryAcquire('e')).toBeDefined();
    held[0]!();
    held[0]!();
    expect([slots.count('a'), slots.countForOrganization('org-1')]).toEqual([1, 2]);
    expect(slots.tryAcquire('c', 'org-1')).toBeDefined();
    expect(slots.tryAcquire('b', 'org-1')).toBeUndefined();
  });

  it('waits 250 ms at first, doubling per deferral up to 5 s, within ±50 %', () => {
    expect([0, 1, 2, 3, 4, 5, 50].map((n) => deferralDelayMs(n, () => 0.5))).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
    expect(deferralDelayMs(0, () => 0)).toBe(125);
    expect(deferralDelayMs(10, () => 0.999_999)).toBe(7500);
    expect(deferralDelayMs(-1, () => 0.5)).toBe(250);
  });

  it('frees the slot as soon as the attempt says its request is over, before its outcome is written', async () => {
    const slots = new EndpointSlots(1);
    const job = { data: { eventId: '6f1c1c52-3c55-4a3e-9a55-9d1f1a0f7f11', endpointId: '0b5e1f1e-8d1f-4c8e-b1f4-2b0f7b1f3e21' } } as Job<DeliveryJob>;
    let written!: () => void;
    const running = withEndpointSlot(job, 'token', slots, async (requestDone) => {
      requestDone();
      await new Promise<void>((resolve) => (written = resolve)); // the outcome's batch, not yet committed
      return 'succeeded';
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(slots.count(job.data.endpointId)).toBe(0);
    written();
    expect(await running).toBe('succeeded');
    expect(slots.count(job.data.endpointId)).toBe(0);
  });
});
