import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import type { Database } from '@docgen/db';
import { createLogger } from '@docgen/observability';
import { FirstAttempts, WEBHOOK_DELIVERY_QUEUE, bullPrefix, createDeliveryQueue, createRedisConnection, deliveryJobId } from '@docgen/queue';
import { createTestDatabase, rowsRead, seedOrganization, type TestDatabase } from '@docgen/testing';
import { UNFINISHED_DELIVERIES, unfinishedDeliveriesParams } from '@docgen/documents';
import { AttemptOutcomes, deliveryBackoffStrategy, deliveryProgress, startAttempt } from '@docgen/webhooks';
import { LostDeliverySweep, type RecoveryDeps } from '../src/recover-deliveries';
import { nextAttemptDelayMs } from '../src/remaining-attempts';

/**
 * The lost-delivery sweep on real PostgreSQL and Redis: a delivery whose first attempt is on
 * the list (waiting, or taken by a dispatcher) is not queued a second time; one Redis forgot
 * is; and what the sweep reads is what may still need an attempt, not the day's events.
 */
describe('the lost-delivery sweep and first attempts', () => {
  let database: TestDatabase;
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const blocking = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefix = `test:${randomUUID()}:`;
  const queue = createDeliveryQueue(redis, prefix);
  const firstAttempts = new FirstAttempts(redis, prefix);
  const deps = () => ({ db: database.db, queue, firstAttempts, logger: createLogger('test', 'silent'), retryBaseMs: 1_000 });
  /** A sweep's run from the oldest delivery, as a dispatcher's first. */
  const sweep = () => new LostDeliverySweep(deps()).run();

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await queue.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    blocking.disconnect();
    await database.drop();
  });

  /** A database and a delivery queue of the test's own: its pages and workers see its deliveries alone. */
  const ownStore = async () => {
    const own = await createTestDatabase();
    const ownPrefix = `test:${randomUUID()}:`;
    const ownQueue = createDeliveryQueue(redis, ownPrefix);
    const ownDeps = (overrides: Partial<RecoveryDeps> = {}): RecoveryDeps => ({
      db: own.db,
      queue: ownQueue,
      firstAttempts: new FirstAttempts(redis, ownPrefix),
      logger: createLogger('test', 'silent'),
      retryBaseMs: 1_000,
      ...overrides,
    });
    const dropOwn = async () => {
      await ownQueue.obliterate({ force: true });
      await ownQueue.close();
      await own.drop();
    };
    return { own, ownPrefix, ownQueue, ownDeps, dropOwn };
  };

  /** An organisation with an endpoint subscribed to document.ready since `createdAgoMs` ago. */
  const readyEndpoint = async (db: Database, name: string, createdAgoMs = 60_000) => {
    const { organizationId } = await seedOrganization(db);
    const endpoint = await db.webhookEndpoint.create({
      data: {
        organizationId,
        url: `https://example.test/${name}`,
        events: ['document.ready'],
        secret: 'whsec_x',
        createdAt: new Date(Date.now() - createdAgoMs),
      },
    });
    return { organizationId, endpoint };
  };

  /** A document.ready event of the organisation, published now. */
  const readyEvent = (db: Database, organizationId: string) =>
    db.outboxEvent.create({ data: { type: 'document.ready', organizationId, isUat: false, subjectId: randomUUID(), payload: {}, publishedAt: new Date() } });

  /** The first attempt logged pending, as the statement that writes a document's event logs it. */
  const logFirstAttempt = (event: { id: string; type: string; subjectId: string }, endpointId: string) =>
    database.db.webhookDelivery.create({
      data: { eventId: event.id, endpointId, attempt: 1, event: event.type, jobId: event.subjectId, webhookId: `msg_${randomUUID()}`, status: 'pending' },
    });

  it('leaves a first attempt on the list alone, waiting or taken, and queues one Redis lost as attempt 1', async () => {
    const { organizationId, endpoint } = await readyEndpoint(database.db, 'hook');
    const event = await readyEvent(database.db, organizationId);
    await logFirstAttempt(event, endpoint.id); // as finish-rendering's statement does with the event
    const jobId = deliveryJobId({ eventId: event.id, endpointId: endpoint.id });
    await firstAttempts.publish(event, [endpoint.id]);

    expect(await sweep()).toBe(0); // waiting on the list
    const taker = firstAttempts.taker(blocking);
    await taker.beat();
    const taken = (await taker.take(1))!;
    expect(await sweep()).toBe(0); // taken by a live dispatcher
    expect(await queue.getJob(jobId)).toBeUndefined();

    await redis.del(...(await redis.keys(`${prefix}{first-attempts}*`))); // Redis lost it
    expect(await sweep()).toBe(1);
    const job = (await queue.getJob(jobId))!;
    expect(job.data).toEqual({ eventId: event.id, endpointId: endpoint.id, attemptsBefore: 0 });
    expect(job.opts.attempts).toBe(4);
    expect(await sweep()).toBe(0); // the job is there now
    await taker.done(taken.raw);
  });

  it("queues an event's delivery that no attempt was logged for (bulk.completed, webhook.test), and none that has ended", async () => {
    const { organizationId } = await seedOrganization(database.db);
    const created = new Date(Date.now() - 60_000);
    const endpoint = await database.db.webhookEndpoint.create({
      data: { organizationId, url: 'https://example.test/bulk', events: ['bulk.completed'], secret: 'whsec_x', createdAt: created },
    });
    const event = (type: string) =>
      database.db.outboxEvent.create({ data: { type, organizationId, isUat: false, subjectId: randomUUID(), payload: {}, publishedAt: new Date() } });
    const bulk = await event('bulk.completed');
    const test = await database.db.outboxEvent.create({
      data: {
        type: 'webhook.test',
        organizationId,
        isUat: false,
        subjectId: randomUUID(),
        payload: { data: { endpoint_id: endpoint.id } },
        publishedAt: new Date(),
      },
    });
    const delivered = await event('bulk.completed');
    await logFirstAttempt(delivered, endpoint.id);
    await database.db.webhookDelivery.updateMany({ where: { eventId: delivered.id }, data: { status: 'succeeded' } });

    expect(await sweep()).toBe(2);
    expect(await queue.getJob(deliveryJobId({ eventId: bulk.id, endpointId: endpoint.id }))).toBeDefined();
    expect(await queue.getJob(deliveryJobId({ eventId: test.id, endpointId: endpoint.id }))).toBeDefined();
    expect(await queue.getJob(deliveryJobId({ eventId: delivered.id, endpointId: endpoint.id }))).toBeUndefined();
  });

  it("reads the deliveries that may still need an attempt, not the day's delivered events", async () => {
    const { organizationId, endpoint } = await readyEndpoint(database.db, 'many');
    const delivered = 5_000;
    // A day's traffic, delivered: each event with its first attempt, succeeded (written here as one statement for speed).
    await database.db.sql.query(
      {
        text: `WITH events AS (
               INSERT INTO outbox_events (type, organization_id, is_uat, subject_id, payload, published_at)
               SELECT 'document.ready', $1, false, gen_random_uuid(), '{}', now() FROM generate_series(1, $3) RETURNING id, subject_id
             )
             INSERT INTO webhook_deliveries (event_id, endpoint_id, attempt, event, job_id, webhook_id, status)
             SELECT id, $2, 1, 'document.ready', subject_id, 'msg_' || id, 'succeeded' FROM events`,
      },
      [organizationId, endpoint.id, delivered],
    );
    const open = await database.db.outboxEvent.create({
      data: { type: 'document.ready', organizationId, isUat: false, subjectId: randomUUID(), payload: {}, publishedAt: new Date() },
    });
    await logFirstAttempt(open, endpoint.id);
    for (const table of ['outbox_events', 'webhook_deliveries', 'webhook_endpoints']) await database.db.sql.query({ text: `ANALYZE ${table}` });

    const found = await database.db.sql.query<{ event_id: string }>(UNFINISHED_DELIVERIES, unfinishedDeliveriesParams(4));
    expect(found.map((row) => row.event_id)).toContain(open.id);
    // The rows its plan reads: the work the sweep does, counted rather than timed.
    expect(await rowsRead(database.db, UNFINISHED_DELIVERIES, unfinishedDeliveriesParams(4))).toBeLessThan(100);
  });

  it("forgets a dead endpoint's deliveries once their attempts are used, and finds one that failed with attempts left", async () => {
    const { organizationId, endpoint } = await readyEndpoint(database.db, 'dead');
    const dead = 300;
    const events = await database.db.sql.query<{ id: string }>(
      {
        text: `INSERT INTO outbox_events (type, organization_id, is_uat, subject_id, payload, published_at)
               SELECT 'document.ready', $1, false, subject, jsonb_build_object('event', 'document.ready', 'job_id', subject), now()
               FROM (SELECT gen_random_uuid() AS subject FROM generate_series(1, $2)) one_per_event RETURNING id`,
      },
      [organizationId, dead + 1],
    );
    // Every attempt made and failed through the dispatcher's own writes; the last event only twice (its retry waits).
    const outcomes = new AttemptOutcomes(database.db, { windowMs: 60_000, maxBatch: dead + 1 });
    for (const attempt of [1, 2, 3, 4]) {
      const attempted = attempt <= 2 ? events : events.slice(0, dead);
      await Promise.all(attempted.map((event) => startAttempt(database.db, { eventId: event.id, endpointId: endpoint.id, attempt }, `msg_${event.id}`)));
      const ended = attempted.map((event) =>
        outcomes.record({ eventId: event.id, endpointId: endpoint.id, attempt }, { status: 'failed', responseStatus: 503, error: 'HTTP 503', durationMs: 5 }),
      );
      await outcomes.flush();
      await Promise.all(ended);
    }
    for (const table of ['outbox_events', 'webhook_deliveries', 'webhook_endpoints']) await database.db.sql.query({ text: `ANALYZE ${table}` });

    const waiting = events[dead]!;
    const found = await database.db.sql.query<{ event_id: string; endpoint_id: string }>(UNFINISHED_DELIVERIES, unfinishedDeliveriesParams(4));
    expect(found.filter((row) => row.endpoint_id === endpoint.id).map((row) => row.event_id)).toEqual([waiting.id]);
    // 1,202 failed attempts, of which one holds its delivery open: the plan reads that, not the endpoint's day.
    expect(await rowsRead(database.db, UNFINISHED_DELIVERIES, unfinishedDeliveriesParams(4))).toBeLessThan(100);

    // Redis lost the retry's job: the sweep queues it, continuing after the two attempts made.
    await sweep();
    const job = (await queue.getJob(deliveryJobId({ eventId: waiting.id, endpointId: endpoint.id })))!;
    expect(job.data).toEqual({ eventId: waiting.id, endpointId: endpoint.id, attemptsBefore: 2 });
    expect(job.opts.attempts).toBe(2);
  });

  it("continues a delivery's backoff by the database's clock, which logged its attempts, whatever the dispatcher's clock says", async () => {
    const { organizationId, endpoint } = await readyEndpoint(database.db, 'skew');
    const event = await readyEvent(database.db, organizationId);
    const pair = { eventId: event.id, endpointId: endpoint.id };
    // Attempt 1 failed a second ago; the next waits a minute after it (a 60 s base).
    await database.db.webhookDelivery.create({
      data: {
        ...pair,
        attempt: 1,
        event: event.type,
        jobId: event.subjectId,
        webhookId: `msg_${randomUUID()}`,
        status: 'failed',
        createdAt: new Date(Date.now() - 1_000),
      },
    });
    const skewed = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 3_600_000); // the dispatcher's clock an hour ahead
    try {
      const delay = nextAttemptDelayMs(60_000, await deliveryProgress(database.db, pair));
      expect(delay).toBeGreaterThan(50_000);
      expect(delay).toBeLessThanOrEqual(59_000);
    } finally {
      skewed.mockRestore();
    }
  });

  it('reads a backlog larger than a page through, a page per run, and finds the lost delivery behind it', async () => {
    // Its own database: the pages must hold this test's deliveries alone.
    const { own, ownQueue, ownDeps, dropOwn } = await ownStore();
    try {
      const { organizationId, endpoint } = await readyEndpoint(own.db, 'down', 3_600_000);
      // Four deliveries retrying against an endpoint that is down (each with its live, delayed job), then one Redis lost,
      // written at the same instant as the fourth (a later id): the position must take the ids too.
      const at = (seconds: number) => new Date(Date.now() - 600_000 + seconds * 1_000);
      const events = [
        { id: randomUUID(), createdAt: at(1) },
        { id: randomUUID(), createdAt: at(2) },
        { id: randomUUID(), createdAt: at(3) },
        { id: '00000000-0000-4000-8000-000000000001', createdAt: at(4) },
        { id: '00000000-0000-4000-8000-000000000002', createdAt: at(4) },
      ];
      for (const { id, createdAt } of events) {
        const event = await own.db.outboxEvent.create({
          data: { id, type: 'document.ready', organizationId, isUat: false, subjectId: randomUUID(), payload: {}, publishedAt: createdAt, createdAt },
        });
        await own.db.webhookDelivery.create({
          data: {
            eventId: event.id,
            endpointId: endpoint.id,
            attempt: 1,
            event: event.type,
            jobId: event.subjectId,
            webhookId: `msg_${id}`,
            status: 'pending',
          },
        });
      }
      const pairs = events.map(({ id }) => ({ eventId: id, endpointId: endpoint.id }));
      for (const pair of pairs.slice(0, 4))
        await ownQueue.add('document.ready', { ...pair, attemptsBefore: 1 }, { jobId: deliveryJobId(pair), delay: 3_600_000 });
      const lost = deliveryJobId(pairs[4]!);

      const sweep = new LostDeliverySweep(ownDeps(), 2);
      expect(await sweep.run()).toBe(0); // the first two, live
      expect(await sweep.run()).toBe(0); // the next two, live
      expect(await ownQueue.getJob(lost)).toBeUndefined();
      expect(await sweep.run()).toBe(1); // the lost one, after them
      expect((await ownQueue.getJob(lost))!.data).toEqual({ ...pairs[4], attemptsBefore: 0 });
      // A page that was not full: the next run starts from the oldest again.
      expect(await sweep.run()).toBe(0);
      expect(await own.db.sql.query(UNFINISHED_DELIVERIES, unfinishedDeliveriesParams(4, undefined, 2))).toEqual([
        expect.objectContaining({ event_id: events[0]!.id }),
        expect.objectContaining({ event_id: events[1]!.id }),
      ]);
    } finally {
      await dropOwn();
    }
  });

  it('skips a delivery it cannot check (its job unreadable) and recovers the ones after it', async () => {
    const { own, ownPrefix, ownQueue, ownDeps, dropOwn } = await ownStore();
    try {
      const { organizationId, endpoint } = await readyEndpoint(own.db, 'odd', 3_600_000);
      const pairs = [];
      for (const seconds of [1, 2]) {
        const createdAt = new Date(Date.now() - 600_000 + seconds * 1_000);
        const event = await own.db.outboxEvent.create({
          data: { type: 'document.ready', organizationId, isUat: false, subjectId: randomUUID(), payload: {}, publishedAt: createdAt, createdAt },
        });
        await own.db.webhookDelivery.create({
          data: {
            eventId: event.id,
            endpointId: endpoint.id,
            attempt: 1,
            event: event.type,
            jobId: event.subjectId,
            webhookId: `msg_${event.id}`,
            status: 'pending',
          },
        });
        pairs.push({ eventId: event.id, endpointId: endpoint.id });
      }
      // The older delivery's job is there but unreadable; the newer one's Redis lost.
      const odd = deliveryJobId(pairs[0]!);
      await ownQueue.add('document.ready', { ...pairs[0]!, attemptsBefore: 1 }, { jobId: odd, delay: 3_600_000 });
      const [key] = (await redis.keys(`${bullPrefix(ownPrefix)}*`)).filter((name) => name.endsWith(`:${odd}`));
      await redis.hset(key!, 'data', '{not json');
      await expect(ownQueue.getJob(odd)).rejects.toThrow();

      const warnings: unknown[] = [];
      const logger = createLogger('test', 'silent');
      logger.warn = ((fields: unknown, msg?: string) => void warnings.push(msg ?? fields)) as typeof logger.warn;
      const sweep = new LostDeliverySweep(ownDeps({ logger }));
      expect(await sweep.run()).toBe(1);
      expect((await ownQueue.getJob(deliveryJobId(pairs[1]!)))!.data).toEqual({ ...pairs[1], attemptsBefore: 0 });
      expect(warnings).toContain('lost-delivery sweep skipped a delivery it could not check');
    } finally {
      await dropOwn();
    }
  });

  it('queues again a delivery whose job failed with attempts unlogged (PostgreSQL was down for its whole schedule), counting from the log as it is after a racing sweep', async () => {
    // Its own database and queue: the failing worker below must see no other test's job.
    const { own, ownPrefix, ownQueue, ownDeps, dropOwn } = await ownStore();
    const ownSweep = () => new LostDeliverySweep(ownDeps()).run();
    try {
      const { organizationId, endpoint } = await readyEndpoint(own.db, 'outage');
      const event = await readyEvent(own.db, organizationId);
      const pair = { eventId: event.id, endpointId: endpoint.id };
      const jobId = deliveryJobId(pair);
      await own.db.webhookDelivery.create({
        data: { ...pair, attempt: 1, event: event.type, jobId: event.subjectId, webhookId: `msg_${randomUUID()}`, status: 'failed' },
      });
      // Attempt 1 failed and was logged; its retry job then failed every try before logging one, as while PostgreSQL is unreachable.
      await ownQueue.add('document.ready', { ...pair, attemptsBefore: 1 }, { jobId, attempts: 1 });
      const failing = new Worker(
        WEBHOOK_DELIVERY_QUEUE,
        async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        },
        { connection: blocking, prefix: bullPrefix(ownPrefix), settings: { backoffStrategy: deliveryBackoffStrategy(1_000) } },
      );
      await new Promise<void>((resolve) => failing.on('failed', (job) => job?.id === jobId && resolve()));
      await failing.close();
      expect(await ownQueue.getJobState(jobId)).toBe('failed');

      expect(await ownSweep()).toBe(1);
      const job = (await ownQueue.getJob(jobId))!;
      expect(job.data).toEqual({ ...pair, attemptsBefore: 1 });
      expect(job.opts.attempts).toBe(3);
      expect(['waiting', 'delayed']).toContain(await ownQueue.getJobState(jobId));
      expect(await ownSweep()).toBe(0); // live now

      // Another dispatcher's sweep read the same failed job; by the time it removes it, this one's
      // job has made attempt 2 and failed. It must not queue attempt 2 again.
      const racing = new Proxy(ownQueue, {
        get(target, property) {
          if (property === 'remove')
            return async (id: string) => {
              await own.db.webhookDelivery.create({
                data: { ...pair, attempt: 2, event: event.type, jobId: event.subjectId, webhookId: `msg_${randomUUID()}`, status: 'failed' },
              });
              return target.remove(id);
            };
          const value = Reflect.get(target, property) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      await ownQueue.remove(jobId);
      await ownQueue.add('document.ready', { ...pair, attemptsBefore: 1 }, { jobId, attempts: 1 });
      const failingAgain = new Worker(
        WEBHOOK_DELIVERY_QUEUE,
        async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        },
        { connection: blocking, prefix: bullPrefix(ownPrefix), settings: { backoffStrategy: deliveryBackoffStrategy(1_000) } },
      );
      await new Promise<void>((resolve) => failingAgain.on('failed', (failed) => failed?.id === jobId && resolve()));
      await failingAgain.close();
      expect(await new LostDeliverySweep(ownDeps({ queue: racing })).run()).toBe(1);
      const requeued = (await ownQueue.getJob(jobId))!;
      expect(requeued.data).toEqual({ ...pair, attemptsBefore: 2 });
      expect(requeued.opts.attempts).toBe(2);
    } finally {
      await dropOwn();
    }
  });
});
