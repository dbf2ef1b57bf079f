import { presentDocument } from '@docgen/contracts';
import { createLogger } from '@docgen/observability';
import { FirstAttempts, createRedisConnection, deliveryJobId } from '@docgen/queue';
import { webhookMessageId } from '@docgen/security';
import { createTestDatabase, interceptSql, seedOrganization, uniqueId, type TestDatabase } from '@docgen/testing';
import { OutboxRelay } from './events/outbox-relay';
import { DocumentFinishes, finishRendering, type FinishOutcome } from './finish-rendering';
import { RenderingAttempt, startRendering, type RenderingDocument } from './start-rendering';

/** The hot-path statements (raw SQL) against what Prisma reads of the same rows. */
describe('document state and the outbox relay', () => {
  let database: TestDatabase;
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefix = `test:${uniqueId()}:`;
  const firstAttempts = new FirstAttempts(redis, prefix);
  let organizationId: string;
  let templateId: string;
  const endpoints: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    ({ organizationId } = await seedOrganization(database.db));
    const template = await database.db.template.create({
      data: { organizationId, name: 'letter', format: 'docx', fileKey: 'templates/letter.docx', fileSize: 10, variables: [{ name: 'name', type: 'text' }] },
    });
    templateId = template.id;
    const endpoint = (name: string, events: string[], extra: { isUat?: boolean; deletedAt?: Date } = {}) =>
      // Created before the events the tests back-date (an endpoint receives the events written after it was created).
      database.db.webhookEndpoint.create({
        data: { organizationId, url: `https://example.test/${name}`, events, secret: 'whsec_x', createdAt: new Date(Date.now() - 120_000), ...extra },
      });
    endpoints.all = (await endpoint('all', ['document.ready', 'document.failed', 'bulk.completed'])).id;
    endpoints.failedOnly = (await endpoint('failed-only', ['document.failed'])).id;
    endpoints.deleted = (await endpoint('deleted', ['document.ready'], { deletedAt: new Date() })).id;
    endpoints.uat = (await endpoint('uat', ['document.ready'], { isUat: true })).id;
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await database.drop();
  });

  const newDocument = () =>
    database.db.document.create({ data: { organizationId, templateId, inputFormat: 'docx', outputFormat: 'pdf', inputJson: { name: 'Ada' } } });

  it('takes a document with its template, and finishes it once, with its event and subscribers', async () => {
    const created = await newDocument();
    const doc = (await startRendering(database.db, created.id, created.generation))!;
    const { template, ...row } = doc;
    expect(row).toEqual(await database.db.document.findUniqueOrThrow({ where: { id: created.id } }));
    expect(row).toMatchObject({ status: 'rendering', renderAttempts: 1 });
    expect(template).toEqual({ variables: [{ name: 'name', type: 'text' }], fileKey: 'templates/letter.docx', htmlFileKey: null, locale: 'en-US' });
    expect(await startRendering(database.db, created.id, created.generation + 1)).toBeUndefined();

    const finished = await finishRendering(database.db, doc, { status: 'ready', files: ['pdf'] });
    expect(finished?.event).toEqual({ id: expect.any(String), type: 'document.ready', endpointIds: [endpoints.all] });
    const event = await database.db.outboxEvent.findUniqueOrThrow({ where: { id: finished!.event!.id } });
    const stored = await database.db.document.findUniqueOrThrow({ where: { id: created.id } });
    // The event presents the document exactly as it is now stored.
    expect(event.payload).toEqual({
      job_id: created.id,
      event: 'document.ready',
      occurred_at: stored.completedAt!.toISOString(),
      data: presentDocument(stored),
    });
    expect(event).toMatchObject({ organizationId, isUat: false, subjectId: created.id, publishedAt: null });
    // Each delivery's first attempt is logged pending by the same statement, under the id its webhook will carry.
    expect(await database.db.webhookDelivery.findMany({ where: { eventId: event.id } })).toEqual([
      expect.objectContaining({
        endpointId: endpoints.all,
        attempt: 1,
        status: 'pending',
        event: 'document.ready',
        jobId: created.id,
        webhookId: webhookMessageId(event.id, endpoints.all!),
      }),
    ]);

    expect(await finishRendering(database.db, doc, { status: 'failed', errorMessage: 'late' })).toBeUndefined();
    expect(await database.db.outboxEvent.count({ where: { subjectId: created.id } })).toBe(1);
  });

  /** A worker's DocumentFinishes, with the statements it sent counted: alone (finish-rendering) and grouped (finish-renderings). */
  const countedFinishes = () => {
    const statements = { single: 0, grouped: 0 };
    const db = interceptSql(database.db, (statement) => {
      if (statement.name === 'finish-rendering') statements.single += 1;
      if (statement.name === 'finish-renderings') statements.grouped += 1;
      return undefined;
    });
    return { finishes: new DocumentFinishes(db), statements };
  };

  it('finishes the documents that end together in one statement, each as if it were alone (DocumentFinishes)', async () => {
    const { finishes, statements } = countedFinishes();
    const started = async (create = newDocument) => {
      const created = await create();
      return (await startRendering(database.db, created.id, created.generation))!;
    };
    const rendering = await Promise.all(Array.from({ length: 5 }, () => started()));
    const uat = await started(() =>
      database.db.document.create({ data: { organizationId, templateId, isUat: true, inputFormat: 'docx', outputFormat: 'pdf', inputJson: { name: 'Ada' } } }),
    );
    const fresh = await newDocument();
    const unmarked = (await RenderingAttempt.take(database.db, fresh.id, fresh.generation, { firstTake: true, markAfterMs: 60_000 }))!;
    // An unmarked attempt whose own mark committed while its finish was on the way.
    const fresher = await newDocument();
    const overtaken = (await RenderingAttempt.take(database.db, fresher.id, fresher.generation, { firstTake: true, markAfterMs: 60_000 }))!;
    const beforeItsMark = overtaken.current();
    await overtaken.mark();
    const done = await started();
    await finishRendering(database.db, done, { status: 'ready', files: ['pdf'] });
    // Quotes, backslashes and characters outside the BMP travel inside the group's JSON intact.
    const TRICKY = 'Missing value for "name" \\ ✓ 😀';
    const asked: [RenderingDocument | ReturnType<RenderingAttempt['current']>, FinishOutcome][] = [
      [rendering[0]!, { status: 'ready', files: ['pdf'] }],
      [rendering[1]!, { status: 'failed', errorMessage: `${TRICKY} 1`, errors: [{ path: 'name', message: 'is required' }] }],
      [rendering[2]!, { status: 'ready', files: ['pdf', 'docx'] }],
      [rendering[3]!, { status: 'failed', errorMessage: `${TRICKY} 3` }],
      [rendering[4]!, { status: 'ready', files: ['docx'] }],
      [uat, { status: 'ready', files: ['pdf'] }],
      [unmarked.current(), { status: 'ready', files: ['pdf'] }],
      [done, { status: 'failed', errorMessage: 'late' }],
      // The same document twice in one group: one finish changes it, the other is answered as one that came second.
      [rendering[2]!, { status: 'failed', errorMessage: 'twice' }],
      [beforeItsMark, { status: 'ready', files: ['docx', 'pdf'] }],
    ];
    const results = await Promise.all(asked.map(([doc, outcome]) => finishes.finish(doc, outcome)));
    unmarked.end();
    overtaken.end();
    // Two went alone at once; the eight made while they ran went together.
    expect(statements).toEqual({ single: 2, grouped: 1 });

    expect(results[7]).toBeUndefined();
    expect([results[2], results[8]].filter(Boolean)).toHaveLength(1);
    const won = results[2] ? 2 : 8;
    for (const [i, [doc, outcome]] of asked.entries()) {
      if (i === 7 || i === 2 + 8 - won) continue;
      const stored = await database.db.document.findUniqueOrThrow({ where: { id: doc.id } });
      expect(stored).toMatchObject({
        status: outcome.status,
        files: outcome.status === 'ready' ? outcome.files : [],
        errorMessage: outcome.status === 'failed' ? outcome.errorMessage : null,
        errors: (outcome.status === 'failed' && outcome.errors) || null,
        renderAttempts: 1,
        renderingStartedAt: doc.renderingStartedAt,
      });
      const subscribers = doc.isUat ? [endpoints.uat] : outcome.status === 'ready' ? [endpoints.all] : [endpoints.all, endpoints.failedOnly];
      const type = outcome.status === 'ready' ? 'document.ready' : 'document.failed';
      const result = results[i]!;
      expect(result.event).toEqual({ id: expect.any(String), type, endpointIds: expect.arrayContaining(subscribers) });
      expect(result.event!.endpointIds).toHaveLength(subscribers.length);
      const event = await database.db.outboxEvent.findUniqueOrThrow({ where: { id: result.event!.id } });
      expect(event).toMatchObject({ organizationId, isUat: doc.isUat, subjectId: doc.id, type, publishedAt: null });
      expect(event.payload).toEqual({ job_id: doc.id, event: type, occurred_at: stored.completedAt!.toISOString(), data: presentDocument(stored) });
      const attempts = await database.db.webhookDelivery.findMany({ where: { eventId: event.id } });
      expect(attempts.map((attempt) => attempt.endpointId).sort()).toEqual([...subscribers].sort());
      for (const attempt of attempts) {
        expect(attempt).toMatchObject({ attempt: 1, status: 'pending', event: type, jobId: doc.id, webhookId: webhookMessageId(event.id, attempt.endpointId) });
      }
    }
    expect(await database.db.outboxEvent.count({ where: { subjectId: rendering[2]!.id } })).toBe(1);
    expect(await database.db.outboxEvent.count({ where: { subjectId: done.id } })).toBe(1);
  });

  it('sends a finish alone when it cannot join a group in time (two statements held up by a lock): a stuck statement delays the others, fails none', async () => {
    const taking = async () => {
      const created = await newDocument();
      return (await startRendering(database.db, created.id, created.generation))!;
    };
    const [a, b, c] = [await taking(), await taking(), await taking()];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockHeld = new Promise<void>((resolve) => (locked = resolve));
    const holder = database.db.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM documents WHERE id IN (${a.id}::uuid, ${b.id}::uuid) FOR UPDATE`;
        locked();
        await released;
      },
      { timeout: 30_000 },
    );
    await lockHeld;
    const { finishes, statements } = countedFinishes();
    const stuck = [a, b].map((doc) => finishes.finish(doc, { status: 'ready', files: ['pdf'] }));
    // Both statements wait for the lock; the third finish waits its turn, then goes alone and is done while they still wait.
    expect(await finishes.finish(c, { status: 'ready', files: ['pdf'] })).toMatchObject({ event: { type: 'document.ready' } });
    expect(statements).toEqual({ single: 3, grouped: 0 });
    release();
    await holder;
    expect(await Promise.all(stuck)).toEqual([expect.objectContaining({ event: expect.anything() }), expect.objectContaining({ event: expect.anything() })]);
  });

  it("finishes a bulk job's rows one a statement, so exactly one of them sees the job complete", async () => {
    const bulkJob = await database.db.bulkJob.create({ data: { organizationId, templateId, outputFormat: 'pdf', totalRows: 6, status: 'running' } });
    const rows = await Promise.all(
      [1, 2, 3, 4, 5, 6].map(async (rowNumber) => {
        const created = await database.db.document.create({
          data: { organizationId, templateId, inputFormat: 'docx', outputFormat: 'pdf', inputJson: { name: 'Ada' }, bulkJobId: bulkJob.id, rowNumber },
        });
        return (await startRendering(database.db, created.id, created.generation))!;
      }),
    );
    const { finishes, statements } = countedFinishes();
    const results = await Promise.all(
      rows.map((row, i) => finishes.finish(row, i === 0 ? { status: 'failed', errorMessage: 'bad row' } : { status: 'ready', files: ['pdf'] })),
    );
    expect(results.filter((result) => result?.bulkJobDone === bulkJob.id)).toHaveLength(1);
    expect(results.every((result) => result !== undefined && result.event === undefined)).toBe(true);
    expect(statements.grouped).toBe(0);
    expect(await database.db.bulkJob.findUniqueOrThrow({ where: { id: bulkJob.id } })).toMatchObject({ succeeded: 5, failed: 1 });
    expect(await database.db.outboxEvent.count({ where: { subjectId: { in: rows.map((row) => row.id) } } })).toBe(0);
  });

  describe('a first attempt marked rendering only if it runs long', () => {
    const LONG = { firstTake: true, markAfterMs: 60_000 } as const;
    const stored = (id: string) => database.db.document.findUniqueOrThrow({ where: { id } });
    const taken: RenderingAttempt[] = [];
    const take = async (...args: Parameters<typeof RenderingAttempt.take>) => {
      const attempt = await RenderingAttempt.take(...args);
      if (attempt) taken.push(attempt);
      return attempt;
    };
    afterEach(() => taken.splice(0).forEach((attempt) => attempt.end()));

    it('finishes queued → ready in one statement that counts the attempt and records its start', async () => {
      const created = await newDocument();
      const attempt = (await take(database.db, created.id, created.generation, LONG))!;
      const { template, ...taken } = attempt.doc;
      expect(template).toMatchObject({ fileKey: 'templates/letter.docx' });
      // Taking wrote nothing: the row is as created.
      expect(await stored(created.id)).toEqual({ ...taken, renderingStartedAt: null });

      const finished = await finishRendering(database.db, attempt.current(), { status: 'ready', files: ['pdf'] });
      expect(finished?.event).toEqual({ id: expect.any(String), type: 'document.ready', endpointIds: [endpoints.all] });
      expect(await stored(created.id)).toMatchObject({ status: 'ready', renderAttempts: 1, renderingStartedAt: taken.renderingStartedAt, files: ['pdf'] });
      // The attempt is over: neither a late finish nor a late mark changes anything.
      expect(await finishRendering(database.db, attempt.current(), { status: 'failed', errorMessage: 'late' })).toBeUndefined();
      expect(await attempt.mark()).toBeUndefined();
      expect(await stored(created.id)).toMatchObject({ status: 'ready', renderAttempts: 1 });
    });

    it('marks a long render rendering (counted, with its start), and then finishes it from rendering', async () => {
      const created = await newDocument();
      const attempt = (await take(database.db, created.id, created.generation, LONG))!;
      const marked = (await attempt.mark())!;
      expect(marked).toMatchObject({ status: 'rendering', renderAttempts: 1 });
      expect(await attempt.mark()).toBe(marked); // once
      expect(await stored(created.id)).toMatchObject({ status: 'rendering', renderAttempts: 1, renderingStartedAt: attempt.doc.renderingStartedAt });
      expect(attempt.current()).toBe(marked);
      expect(await finishRendering(database.db, marked, { status: 'ready', files: ['pdf'] })).toBeDefined();
      expect(await stored(created.id)).toMatchObject({ status: 'ready', renderAttempts: 1 });
    });

    it('marks it by itself once the delay has passed', async () => {
      const created = await newDocument();
      const attempt = (await take(database.db, created.id, created.generation, { firstTake: true, markAfterMs: 1 }))!;
      const marked = await new Promise<unknown>((resolve) => {
        const poll = () => (attempt.current().status === 'rendering' ? resolve(attempt.current()) : setImmediate(poll));
        void poll();
      });
      expect(marked).toMatchObject({ status: 'rendering', renderAttempts: 1 });
    });

    it('counts a failed first attempt in its finish', async () => {
      const created = await newDocument();
      const attempt = (await take(database.db, created.id, created.generation, LONG))!;
      expect(await finishRendering(database.db, attempt.current(), { status: 'failed', errorMessage: 'Missing value for "name"' })).toBeDefined();
      expect(await stored(created.id)).toMatchObject({ status: 'failed', renderAttempts: 1, errorMessage: 'Missing value for "name"' });
    });

    it('marks at once a document already counted or taken over, and takes nothing of another generation', async () => {
      const created = await newDocument();
      await startRendering(database.db, created.id, created.generation); // a worker that then died
      const takeover = (await take(database.db, created.id, created.generation, LONG))!;
      expect(await stored(created.id)).toMatchObject({ status: 'rendering', renderAttempts: 2 });
      expect(takeover.current()).toMatchObject({ status: 'rendering', renderAttempts: 2 });
      expect(await take(database.db, created.id, created.generation + 1, LONG)).toBeUndefined();
      expect(await take(database.db, created.id, created.generation + 1, { firstTake: false, jobTakes: 1 })).toBeUndefined();
    });

    it('counts a job taken again as at least its takes (its first take may have stopped its worker unmarked)', async () => {
      const created = await newDocument();
      const retaken = (await take(database.db, created.id, created.generation, { firstTake: false, jobTakes: 2 }))!;
      expect(retaken.doc).toMatchObject({ status: 'rendering', renderAttempts: 2 });
      const again = (await take(database.db, created.id, created.generation, { firstTake: false, jobTakes: 1 }))!;
      expect(again.doc).toMatchObject({ status: 'rendering', renderAttempts: 3 });
    });

    it('finishes the unmarked row when its mark failed, and marks on the next try', async () => {
      const created = await newDocument();
      let failMark = true;
      const flaky = interceptSql(database.db, (statement) =>
        statement.name === 'mark-rendering' && failMark ? Promise.reject(new Error('Connection terminated unexpectedly')) : undefined,
      );
      const attempt = (await take(flaky, created.id, created.generation, LONG))!;
      await expect(attempt.mark()).rejects.toThrow('Connection terminated unexpectedly');
      expect(attempt.current()).toBe(attempt.doc);
      failMark = false;
      expect(await attempt.mark()).toMatchObject({ status: 'rendering', renderAttempts: 1 });
      expect(await finishRendering(database.db, attempt.current(), { status: 'ready', files: ['pdf'] })).toBeDefined();
      expect(await stored(created.id)).toMatchObject({ status: 'ready', renderAttempts: 1 });
    });

    it('finishes an unmarked attempt whose own mark committed while its finish was on the way, but not one taken over since', async () => {
      const created = await newDocument();
      const attempt = (await take(database.db, created.id, created.generation, LONG))!;
      const unmarked = attempt.current();
      await attempt.mark(); // the timer, while the finish was on its way
      expect(await finishRendering(database.db, unmarked, { status: 'ready', files: ['pdf'] })).toBeDefined();
      expect(await stored(created.id)).toMatchObject({ status: 'ready', renderAttempts: 1 });

      // Another take of this generation is a later pick-up of the same job (its lock ran out): counted as at least its
      // job's takes, 2, even should its worker's clock give it the very same start.
      const other = await newDocument();
      const lost = (await take(database.db, other.id, other.generation, LONG))!;
      await startRendering(database.db, other.id, other.generation, 2);
      await database.db.document.update({ where: { id: other.id }, data: { renderingStartedAt: lost.doc.renderingStartedAt } });
      expect(await stored(other.id)).toMatchObject({ status: 'rendering', renderAttempts: 2 });
      expect(await finishRendering(database.db, lost.current(), { status: 'ready', files: ['pdf'] })).toBeUndefined();
      expect(await lost.mark()).toBeUndefined();
      expect(await stored(other.id)).toMatchObject({ status: 'rendering', renderAttempts: 2 });
    });

    it('keeps the mark timer running until the attempt ends, trying again after a failed mark, so a finish that hangs leaves the document rendering', async () => {
      const created = await newDocument();
      let marks = 0;
      const flakyOnce = interceptSql(database.db, (statement) =>
        statement.name === 'mark-rendering' && ++marks === 1 ? Promise.reject(new Error('Connection terminated unexpectedly')) : undefined,
      );
      // The render is done and its finish went out, never to come back: nobody calls end().
      const attempt = (await take(flakyOnce, created.id, created.generation, { firstTake: true, markAfterMs: 1 }))!;
      const marked = await new Promise<RenderingDocument>((resolve) => {
        const poll = () => (attempt.current().status === 'rendering' ? resolve(attempt.current()) : setImmediate(poll));
        poll();
      });
      expect(marks).toBe(2);
      expect(marked).toMatchObject({ status: 'rendering', renderAttempts: 1 });
      expect(await stored(created.id)).toMatchObject({ status: 'rendering', renderAttempts: 1 });
    });

    it('stands down when the document moved on while unmarked (re-queued under a new generation)', async () => {
      const created = await newDocument();
      const attempt = (await take(database.db, created.id, created.generation, LONG))!;
      await database.db.document.update({ where: { id: created.id }, data: { generation: { increment: 1 } } });
      expect(await attempt.mark()).toBeUndefined();
      expect(await finishRendering(database.db, attempt.current(), { status: 'ready', files: ['pdf'] })).toBeUndefined();
      expect(await stored(created.id)).toMatchObject({ status: 'queued', renderAttempts: 0, generation: created.generation + 1 });
    });
  });

  it('publishes an event as one first attempt per subscriber and marks it published; the sweep catches one left unpublished', async () => {
    const relay = new OutboxRelay(database.db, firstAttempts, createLogger('test', 'silent'));
    const created = await newDocument();
    const doc = (await startRendering(database.db, created.id, created.generation))!;
    const finished = (await finishRendering(database.db, doc, { status: 'failed', errorMessage: 'Missing value for "name"' }))!;
    expect(finished.event!.endpointIds!.sort()).toEqual([endpoints.all, endpoints.failedOnly].sort());

    await relay.publish(finished.event!);
    await relay.flushMarks();
    let offered = (await firstAttempts.pendingJobIds())!;
    for (const endpointId of [endpoints.all!, endpoints.failedOnly!])
      expect(offered.has(deliveryJobId({ eventId: finished.event!.id, endpointId }))).toBe(true);
    expect((await database.db.outboxEvent.findUniqueOrThrow({ where: { id: finished.event!.id } })).publishedAt).not.toBeNull();

    // A worker that died between its commit and its publish left this one.
    const orphan = await database.db.outboxEvent.create({
      data: { type: 'bulk.completed', organizationId, isUat: false, subjectId: created.id, payload: {}, createdAt: new Date(Date.now() - 60_000) },
    });
    // (The first test's event, never published, is swept too once it is 5 s old.)
    expect(await relay.sweep()).toBeGreaterThanOrEqual(1);
    offered = (await firstAttempts.pendingJobIds())!;
    expect(offered.has(deliveryJobId({ eventId: orphan.id, endpointId: endpoints.all! }))).toBe(true);
    expect(offered.has(deliveryJobId({ eventId: orphan.id, endpointId: endpoints.failedOnly! }))).toBe(false);
    expect((await database.db.outboxEvent.findUniqueOrThrow({ where: { id: orphan.id } })).publishedAt).not.toBeNull();
    expect(await relay.sweep()).toBe(0);
    await relay.stop();
  });
});
