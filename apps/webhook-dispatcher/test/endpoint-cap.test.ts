import { deferralDelayMs, EndpointSlots } from '../src/endpoint-cap';

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

  it('waits 250 ms at first, doubling per deferral up to 5 s, within ±50 %', () => {
    expect([0, 1, 2, 3, 4, 5, 50].map((n) => deferralDelayMs(n, () => 0.5))).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
    expect(deferralDelayMs(0, () => 0)).toBe(125);
    expect(deferralDelayMs(10, () => 0.999_999)).toBe(7500);
    expect(deferralDelayMs(-1, () => 0.5)).toBe(250);
  });
});
