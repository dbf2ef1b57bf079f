import { Turns, TurnsByKey } from './turns';

/** Settles what is already resolved, so a test can see which waiters got a turn. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function track(promise: Promise<() => void>) {
  const state: { release?: () => void; error?: unknown } = {};
  promise.then(
    (release) => (state.release = release),
    (error: unknown) => (state.error = error),
  );
  return state;
}

describe('Turns', () => {
  it('gives turns first come first served, urgent waiters first, and a double release gives back one turn', async () => {
    const turns = new Turns(1);
    const first = await turns.acquire();
    const normal = track(turns.acquire());
    const urgent = track(turns.acquire({ urgent: true }));
    await settle();
    expect([normal.release, urgent.release]).toEqual([undefined, undefined]);
    first();
    first();
    await settle();
    expect(urgent.release).toBeDefined();
    expect(normal.release).toBeUndefined();
    urgent.release!();
    await settle();
    expect(normal.release).toBeDefined();
    normal.release!();
    expect(turns.busy).toBe(false);
  });

  it('a waiter whose signal aborts leaves the line with its reason and takes no turn', async () => {
    const turns = new Turns(1);
    const held = await turns.acquire();
    const controller = new AbortController();
    const gaveUp = track(turns.acquire({ until: controller.signal }));
    const next = track(turns.acquire());
    controller.abort(new Error('out of time'));
    await settle();
    expect((gaveUp.error as Error).message).toBe('out of time');
    held();
    await settle();
    expect(next.release).toBeDefined();
    await expect(turns.acquire({ until: controller.signal })).rejects.toThrow('out of time');
  });
});

describe('TurnsByKey', () => {
  it('bounds each key alone and forgets a key once its last turn is given back', async () => {
    const turns = new TurnsByKey(2);
    const a1 = await turns.acquire('a');
    const a2 = await turns.acquire('a');
    const a3 = track(turns.acquire('a'));
    const b1 = track(turns.acquire('b'));
    await settle();
    expect(a3.release).toBeUndefined();
    expect(b1.release).toBeDefined();
    a1();
    await settle();
    expect(a3.release).toBeDefined();
    a2();
    a3.release!();
    b1.release!();
    expect(turns.keys).toBe(0);
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(turns.acquire('c', { until: controller.signal })).rejects.toThrow('gone');
    expect(turns.keys).toBe(0);
  });
});
