import { createLogger } from '@docgen/observability';
import { startSweep } from './sweep';

describe('startSweep', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('never runs twice at once: a run still going makes the next due one skip; a failed run does not stop the sweep', async () => {
    const logger = createLogger('test', 'silent');
    const warnings: unknown[] = [];
    jest.spyOn(logger, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args));
    let runs = 0;
    let finish: () => void = () => undefined;
    const stop = startSweep(
      {
        name: 'test sweep',
        intervalMs: 100,
        run: () => {
          runs += 1;
          if (runs === 3) return Promise.reject(new Error('boom'));
          return new Promise<void>((resolve) => (finish = resolve));
        },
      },
      { logger },
    );

    await jest.advanceTimersByTimeAsync(350); // due at 100, 200, 300: only the first starts
    expect(runs).toBe(1);
    finish();
    await jest.advanceTimersByTimeAsync(100);
    expect(runs).toBe(2);
    finish();
    await jest.advanceTimersByTimeAsync(100); // the third fails
    await jest.advanceTimersByTimeAsync(100);
    expect(runs).toBe(4);
    expect(warnings).toEqual([[{ err: new Error('boom') }, 'test sweep failed']]);
    stop();
    finish();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(4);
  });
});
