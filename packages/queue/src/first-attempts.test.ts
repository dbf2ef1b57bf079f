import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FIRST_ATTEMPTS_SNAPSHOT_LIMIT, FirstAttempts, parseAttempt } from './first-attempts';
import { blockingConnection, type TakenEntry } from './take-list';
import { deliveryJobId } from './queues';
import { createRedisConnection } from './redis-connection';

/** The first-attempt lists on the real Redis: what a dispatcher takes, gives back and leaves behind when it dies. */
describe('first delivery attempts on a plain list', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = createRedisConnection(url, 'worker');
  const connections: ReturnType<typeof createRedisConnection>[] = [];
  const prefixes: string[] = [];
  const fresh = () => {
    const prefix = `test:${randomUUID()}:`;
    prefixes.push(prefix);
    return { prefix, attempts: new FirstAttempts(redis, prefix) };
  };
  const connection = () => {
    const made = createRedisConnection(url, 'worker');
    connections.push(made);
    return made;
  };
  const event = () => ({ id: randomUUID(), type: 'document.ready' });
  const waitingKey = (prefix: string) => `${prefix}{first-attempts}:waiting`;
  const attemptOf = (entry: TakenEntry | null) => (entry ? parseAttempt(entry) : undefined);

  afterAll(async () => {
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
    }
    for (const made of connections) made.disconnect();
    redis.disconnect();
  });

  it('offers one entry per endpoint, oldest first; a taken entry counts as pending until it is done', async () => {
    const { attempts } = fresh();
    const [a, b] = [event(), event()];
    const [one, two] = [randomUUID(), randomUUID()];
    await attempts.publish(a, [one, two]);
    await attempts.publish(b, [one]);
    await attempts.publish(b, []); // an event with no subscriber offers nothing
    expect(await attempts.pendingJobIds()).toEqual(
      new Set([
        deliveryJobId({ eventId: a.id, endpointId: one }),
        deliveryJobId({ eventId: a.id, endpointId: two }),
        deliveryJobId({ eventId: b.id, endpointId: one }),
      ]),
    );

    const taker = attempts.taker(connection());
    await taker.beat();
    const first = (await taker.take(1))!;
    expect(attemptOf(first)).toEqual({ eventId: a.id, endpointId: one, type: 'document.ready' });
    expect((await attempts.pendingJobIds())!.size).toBe(3); // taken, not yet done
    await taker.done(first.raw);
    expect((await attempts.pendingJobIds())!.has(deliveryJobId({ eventId: a.id, endpointId: one }))).toBe(false);
    expect(attemptOf(await taker.take(1))?.endpointId).toBe(two);
    expect(attemptOf(await taker.take(1))?.eventId).toBe(b.id);
    expect(await taker.take(1)).toBeNull(); // nothing left: the wait ends empty
  });

  it('a sweep publishing the same event again offers nothing new (publishOnce)', async () => {
    const { attempts } = fresh();
    const swept = event();
    const endpoints = [randomUUID(), randomUUID()];
    await Promise.all([attempts.publishOnce(swept, endpoints), attempts.publishOnce(swept, endpoints)]); // two workers' sweeps at once
    const added = randomUUID(); // an endpoint subscribed since
    await attempts.publishOnce(swept, [endpoints[0]!, added]);
    const taker = attempts.taker(connection());
    await taker.beat();
    const taken: string[] = [];
    for (let entry = await taker.take(1); entry; entry = await taker.take(1)) taken.push(attemptOf(entry)!.endpointId);
    expect(taken.sort()).toEqual([...endpoints, added].sort());
  });

  it("gives a silent dispatcher's entries back, and only once it has been silent for the heartbeat", async () => {
    const { attempts } = fresh();
    const events = [event(), event()];
    for (const each of events) await attempts.publish(each, [randomUUID()]);
    const dying = attempts.taker(connection());
    await dying.beat();
    const taken = [(await dying.take(1))!, (await dying.take(1))!];
    expect(taken.map((entry) => attemptOf(entry)?.eventId)).toEqual(events.map((each) => each.id));

    expect(await attempts.reclaimAbandoned(10_000)).toBe(0); // beat just now
    await sleep(300); // no beat since: as a dispatcher killed mid-attempt
    expect(await attempts.reclaimAbandoned(200, dying)).toBe(0); // never by its own sweep: that one is alive, only late
    expect(await attempts.reclaimAbandoned(200)).toBe(2);
    expect(await attempts.reclaimAbandoned(200)).toBe(0);

    const heir = attempts.taker(connection());
    await heir.beat();
    const again = [(await heir.take(1))!, (await heir.take(1))!];
    expect(again.map((entry) => attemptOf(entry)?.eventId)).toEqual(events.map((each) => each.id)); // in the order first taken
    expect(again.map((entry) => entry.takenBefore)).toEqual([1, 1]); // marked: held once by a taker that stopped
    // The dead dispatcher's late "done" changes nothing now: the entries are the heir's.
    for (const entry of taken) await dying.done(entry.raw);
    expect((await attempts.pendingJobIds())!.size).toBe(2);
  });

  it('a silent dispatcher stays known for a while: an entry its blocked take still moves is read and given back', async () => {
    const { attempts } = fresh();
    const slow = attempts.taker(connection());
    await slow.beat();
    await sleep(300);
    expect(await attempts.reclaimAbandoned(200)).toBe(0); // nothing taken yet; the id is kept (forgotten after a minute)
    const late = slow.take(5); // blocked on the server on behalf of the silent dispatcher
    const published = event();
    await attempts.publish(published, [randomUUID()]);
    expect(attemptOf(await late)?.eventId).toBe(published.id);
    expect((await attempts.pendingJobIds())!.size).toBe(1); // its list is still read
    expect(await attempts.reclaimAbandoned(200)).toBe(1); // and given back
  });

  it('after a failed take, gives back what the lost answer moved in, keeping the entries being run', async () => {
    const { prefix, attempts } = fresh();
    const taker = attempts.taker(connection());
    await taker.beat();
    await attempts.publish(event(), [randomUUID(), randomUUID()]);
    const running = (await taker.take(1))!;
    await taker.take(1); // its answer "lost": the runner never saw it
    expect(await taker.giveBackUnknown([running.raw])).toBe(1);
    expect(await redis.llen(waitingKey(prefix))).toBe(1);
    expect((await attempts.pendingJobIds())!.size).toBe(2);
    expect(await taker.giveBackUnknown([running.raw])).toBe(0);
  });

  it('on release (shutdown) gives back what is still taken; an entry that is not ours reads as no attempt (the runner drops it)', async () => {
    const { prefix, attempts } = fresh();
    const stopping = attempts.taker(connection());
    await stopping.beat();
    await attempts.publish(event(), [randomUUID()]);
    await stopping.take(1);
    await stopping.release();
    expect((await attempts.pendingJobIds())!.size).toBe(1);
    const next = attempts.taker(connection());
    await next.beat();
    expect(attemptOf(await next.take(1))).toBeDefined();

    await redis.lpush(waitingKey(prefix), 'not json', JSON.stringify({ eventId: 'x', endpointId: 'y', type: 'z' }));
    expect(attemptOf(await next.take(1))).toBeUndefined();
    expect(attemptOf(await next.take(1))).toBeUndefined();
  });

  it('the sweep does not read a backlog longer than the limit', async () => {
    const { prefix, attempts } = fresh();
    const entries = Array.from({ length: FIRST_ATTEMPTS_SNAPSHOT_LIMIT + 1 }, () =>
      JSON.stringify({ eventId: randomUUID(), endpointId: randomUUID(), type: 'document.ready' }),
    );
    await redis.lpush(waitingKey(prefix), ...entries);
    expect(await attempts.pendingJobIds()).toBeUndefined();
    await redis.rpop(waitingKey(prefix));
    expect((await attempts.pendingJobIds())!.size).toBe(FIRST_ATTEMPTS_SNAPSHOT_LIMIT);
  });

  it('a take in flight when its connection drops fails at once, and is not sent again to take a second entry', async () => {
    const { prefix, attempts } = fresh();
    const blocking = blockingConnection(redis);
    connections.push(blocking);
    const id = Number(await blocking.client('ID'));
    const taker = attempts.taker(blocking);
    await taker.beat();
    const waiting = taker.take(30);
    await sleep(100); // blocked in Redis
    await redis.client('KILL', 'ID', String(id));
    await expect(waiting).rejects.toThrow();
    // Once reconnected, nothing was taken behind the runner's back, and taking works again.
    await attempts.publish(event(), [randomUUID()]);
    await sleep(300);
    expect(await redis.llen(waitingKey(prefix))).toBe(1);
    expect(attemptOf(await taker.take(1))).toBeDefined();
  });

  it('a take blocked on the server ends at once when interrupted', async () => {
    const blocking = connection();
    await blocking.ping(); // connected: the take below is sent and blocks in Redis
    const taker = fresh().attempts.taker(blocking);
    const waiting = taker.take(30);
    await sleep(100);
    taker.interrupt();
    await expect(waiting).rejects.toThrow();
  });
});
