import { randomUUID } from 'node:crypto';
import { createRenderQueue } from './queues';
import { createRedisConnection } from './redis-connection';
import { enqueueFairly, fairBacklogSize, inFairBacklogs, pumpFairQueue } from './fair-queue';
import { renderJobOfEntry, renderTakeCounts, renderTakeList } from './render-takes';
import { blockingConnection } from './take-list';

/** The fair-share scheduler on the real Redis, with a real taker of the render list taking jobs in the order it is given them. */
describe('fair share across organisations', () => {
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefixes: string[] = [];
  /** A render queue under a key prefix of its own, so each test starts with empty backlogs. */
  const freshQueue = () => {
    const prefix = `test:${randomUUID()}:`;
    prefixes.push(prefix);
    return { prefix, queue: createRenderQueue(redis, prefix) };
  };
  const job = (organizationId: string) => ({ documentId: randomUUID(), generation: 1, organizationId });
  const waitingOnList = async (queue: ReturnType<typeof createRenderQueue>) => (await renderTakeCounts(queue)).waiting;
  /** Takes the next document from the render list, as a worker does, and finishes it at once. */
  const takeNext = async (taker: ReturnType<ReturnType<typeof renderTakeList>['taker']>) => {
    const entry = (await taker.take(1))!;
    await taker.done(entry.raw);
    return renderJobOfEntry(entry)!;
  };

  afterAll(async () => {
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
    }
    redis.disconnect();
  });

  it("hands another organisation's one document to the workers before the rest of a large backlog", async () => {
    const { queue } = freshQueue();
    const depth = 4;
    const bulk = Array.from({ length: 200 }, () => job('org-a'));
    // Queued in chunks, as a bulk job queues its rows.
    for (let start = 0; start < bulk.length; start += 50) await enqueueFairly(queue, bulk.slice(start, start + 50), depth);
    const single = job('org-b');
    await enqueueFairly(queue, [single], depth);

    // Only `depth` jobs are on the render list; every other one waits in its organisation's
    // backlog, and the two together are every waiting document (what the autoscaling gauge sums).
    expect(await waitingOnList(queue)).toBe(depth);
    expect(await fairBacklogSize(queue)).toBe(bulk.length + 1 - depth);
    expect(await inFairBacklogs(queue, [single, bulk[0]!])).toEqual([true, false]);

    const blocking = blockingConnection(redis);
    const taker = renderTakeList(redis, queue).taker(blocking);
    const order: string[] = [];
    while (order.length < bulk.length + 1) {
      order.push((await takeNext(taker)).documentId);
      await pumpFairQueue(queue, depth); // as a worker does at each take
    }
    blocking.disconnect();
    await queue.close();

    // Behind at most the jobs already on the list (depth) and the one being taken when it arrived.
    expect(order.indexOf(single.documentId)).toBeLessThanOrEqual(depth + 1);
    expect(new Set(order).size).toBe(bulk.length + 1);
    // Within an organisation, first queued, first handed over.
    const aOrder = order.filter((id) => id !== single.documentId);
    expect(aOrder).toEqual(bulk.map((j) => j.documentId));
    expect(await fairBacklogSize(queue)).toBe(0);
  });

  it('takes turns between organisations that both have a backlog, and queues a generation only once', async () => {
    const { queue } = freshQueue();
    const depth = 1;
    const a = Array.from({ length: 5 }, () => job('org-c'));
    const b = Array.from({ length: 5 }, () => job('org-d'));
    await enqueueFairly(queue, a, depth);
    await enqueueFairly(queue, b, depth);
    await enqueueFairly(queue, [a[4]!], depth); // already waiting: not added twice
    expect((await waitingOnList(queue)) + (await fairBacklogSize(queue))).toBe(10);

    const blocking = blockingConnection(redis);
    const taker = renderTakeList(redis, queue).taker(blocking);
    const handed: string[] = [];
    for (let i = 0; i < 10; i++) {
      const taken = await takeNext(taker);
      handed.push(a.some((j) => j.documentId === taken.documentId) ? 'c' : 'd');
      await pumpFairQueue(queue, depth);
    }
    blocking.disconnect();
    // c's first job went over when it was queued, and c kept its place at the head of the ring;
    // d joined behind it, and from then on they alternate until c's backlog is empty.
    expect(handed.join('')).toBe('ccdcdcdcdd');
    expect(await renderTakeCounts(queue)).toEqual({ waiting: 0, taken: 0 });
    await queue.close();
  });

  it('hands jobs straight to the render list while no organisation has a backlog, and backlogs only what finds no room', async () => {
    const { prefix, queue } = freshQueue();
    const depth = 3;
    const first = [job('org-e'), job('org-e')];
    expect(await enqueueFairly(queue, first, depth)).toBe(2);
    // Nothing went through a backlog: no backlog key, ring or count was written.
    expect(await redis.keys(`${prefix}*fair*`)).toEqual([]);
    expect(await pumpFairQueue(queue, depth)).toBe(0);

    // One more fits; the other two wait in their backlog, and from then on everyone takes turns.
    const more = [job('org-e'), job('org-e'), job('org-e')];
    expect(await enqueueFairly(queue, more, depth)).toBe(1);
    expect(await inFairBacklogs(queue, more)).toEqual([false, true, true]);
    const other = job('org-f');
    expect(await enqueueFairly(queue, [other], depth)).toBe(0); // org-e has a backlog: org-f joins the ring
    expect(await inFairBacklogs(queue, [other])).toEqual([true]);
    expect(await waitingOnList(queue)).toBe(depth);
    expect(await fairBacklogSize(queue)).toBe(3);
    await queue.close();
  });

  it('hands a generation to the render list once, even when the same call comes again after it was taken (a reply lost, the call sent again)', async () => {
    const { queue } = freshQueue();
    const once = job('org-g');
    expect(await enqueueFairly(queue, [once, once])).toBe(1);
    const blocking = blockingConnection(redis);
    const taker = renderTakeList(redis, queue).taker(blocking);
    expect((await takeNext(taker)).documentId).toBe(once.documentId);
    expect(await enqueueFairly(queue, [once])).toBe(0);
    expect(await renderTakeCounts(queue)).toEqual({ waiting: 0, taken: 0 });
    blocking.disconnect();
    await queue.close();
  });
});
