import { DELIVERY_JOB_OPTIONS, WEBHOOK_BACKOFF, WEBHOOK_MAX_ATTEMPTS, deliveryBackoffStrategy, retryDelayMs } from './retry-schedule';

describe('the webhook retry schedule', () => {
  it('is 1 try + 3 retries, waiting 1×, 2×, 4× the base', () => {
    expect(DELIVERY_JOB_OPTIONS).toMatchObject({ attempts: WEBHOOK_MAX_ATTEMPTS, backoff: { type: WEBHOOK_BACKOFF } });
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(4);
    expect([1, 2, 3].map((made) => retryDelayMs(10_000, made))).toEqual([10_000, 20_000, 40_000]);
  });

  it('continues a recovered job from the attempts made before it, and leaves other backoff types alone', () => {
    const strategy = deliveryBackoffStrategy(1_000);
    expect(strategy(1, WEBHOOK_BACKOFF, undefined, { data: {} })).toBe(1_000);
    expect(strategy(1, WEBHOOK_BACKOFF, undefined, { data: { attemptsBefore: 2 } })).toBe(4_000);
    expect(strategy(1, 'exponential')).toBe(0);
  });
});
