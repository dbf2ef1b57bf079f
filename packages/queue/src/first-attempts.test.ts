import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FirstAttempts } from './first-attempts';
import { deliveryJobId } from './queues';
import { createRedisConnection } from './redis-connection';

/** The first-attempt lists on the real Redis: what a dispatcher takes, gives back and leaves behind when it dies. */
describe('first delivery attempts on a plain list', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = createRedisConnection(url, 'worker');
  const blocking: ReturnType<typeof createRedisConnection>[] = [];
  const prefixes: string[] = [];
  const fresh = () => {
    const prefix = `test:${randomUUID()}:`;
    prefixes.push(prefix);
    return new FirstAttempts(redis, prefix);
  };
  const connection = () => {
    const made = createRedisConnection(url, 'worker');
    blocking.push(made);
    return made;
  };
  const event = () => ({ id: randomUUID(), type: 'document.ready' });

  afterAll(async () => {
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
    }
    for (const made of blocking) made.disconnect();
    redis.disconnect();
  });

  it('offers one entry per endpoint, oldest first; a taken entry counts as pending until it is done', async () => {
    const attempts = fresh();
    const [a, b] = [event(), event()];
    const [one, two] = [randomUUID(), randomUUID()];
    await attempts.publish(a, [one, two]);
    await attempts.publish(b, [one]);
    await attempts.publish(b, []); // an event with no subscriber offers nothing
    expect(await attempts.pendingJobIds()).toEqual(
      new Set([deliveryJobId({ eventId: a.id, endpointId: one }), deliveryJobId({ eventId: a.id, endpointId: two }), deliveryJobId({ eventId: b.id, endpointId: one })]),
    );

    const taker = attempts.taker(connection(), 10_000);
    await taker.beat();
    const first = (await taker.take(1))!;
    expect(first.attempt).toEqual({ eventId: a.id, endpointId: one, type: 'document.ready' });
    expect((await attempts.pendingJobIds()).size).toBe(3); // taken, not yet done
    await taker.done(first);
    expect((await attempts.pendingJobIds()).has(deliveryJobId({ eventId: a.id, endpointId: one }))).toBe(false);
    expect((await taker.take(1))!.attempt?.endpointId).toBe(two);
    expect((await taker.take(1))!.attempt?.eventId).toBe(b.id);
    expect(await taker.take(1)).toBeNull(); // nothing left: the wait ends empty
  });

  it("gives a silent dispatcher's entries back, and only once its heartbeat has expired", async () => {
    const attempts = fresh();
    const events = [event(), event()];
    for (const each of events) await attempts.publish(each, [randomUUID()]);
    const dying = attempts.taker(connection(), 300);
    await dying.beat();
    const taken = [(await dying.take(1))!, (await dying.take(1))!];
    expect(taken.map((entry) => entry.attempt?.eventId)).toEqual(events.map((each) => each.id));

    expect(await attempts.reclaimAbandoned()).toBe(0); // still beating
    await sleep(400); // no beat since: as a dispatcher killed mid-attempt
    expect(await attempts.reclaimAbandoned()).toBe(2);
    expect(await attempts.reclaimAbandoned()).toBe(0);

    const heir = attempts.taker(connection(), 10_000);
    await heir.beat();
    const again = [(await heir.take(1))!, (await heir.take(1))!];
    expect(again.map((entry) => entry.attempt?.eventId)).toEqual(events.map((each) => each.id)); // in the order first taken
    // The dead dispatcher's late "done" changes nothing now: the entries are the heir's.
    for (const entry of taken) await dying.done(entry);
    expect((await attempts.pendingJobIds()).size).toBe(2);
  });

  it('on release (shutdown) gives back what is still taken; an entry that is not ours reads as no attempt (the runner drops it)', async () => {
    const attempts = fresh();
    const stopping = attempts.taker(connection(), 10_000);
    await stopping.beat();
    await attempts.publish(event(), [randomUUID()]);
    await stopping.take(1);
    await stopping.release();
    expect((await attempts.pendingJobIds()).size).toBe(1);
    const next = attempts.taker(connection(), 10_000);
    await next.beat();
    expect((await next.take(1))?.attempt).toBeDefined();

    const prefix = prefixes.at(-1)!;
    await redis.lpush(`${prefix}{first-attempts}:waiting`, 'not json', JSON.stringify({ eventId: 'x', endpointId: 'y', type: 'z' }));
    expect((await next.take(1))?.attempt).toBeUndefined();
    expect((await next.take(1))?.attempt).toBeUndefined();
  });

  it('a wait cut short by interrupt rejects at once', async () => {
    const taker = fresh().taker(connection(), 10_000);
    const waiting = taker.take(30);
    taker.interrupt();
    await expect(waiting).rejects.toThrow();
  });
});
