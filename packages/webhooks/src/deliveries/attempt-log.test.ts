import { createTestDatabase, seedOrganization, type TestDatabase } from '@docgen/testing';
import { AttemptOutcomes, startAttempt } from './attempt-log';

/** The delivery log's hot-path statements against real PostgreSQL. */
describe('the delivery log', () => {
  let database: TestDatabase;
  let endpointIds: string[];
  let eventId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { organizationId } = await seedOrganization(database.db);
    const endpoint = (name: string) =>
      database.db.webhookEndpoint.create({ data: { organizationId, url: `https://example.test/${name}`, events: ['document.ready'], secret: 'whsec_x' } });
    endpointIds = [(await endpoint('a')).id, (await endpoint('b')).id];
    const subject = '6f1c1c52-3c55-4a3e-9a55-9d1f1a0f7f11';
    const event = await database.db.outboxEvent.create({
      data: { type: 'document.ready', organizationId, isUat: false, subjectId: subject, payload: { job_id: subject, event: 'document.ready' } },
    });
    eventId = event.id;
  });

  afterAll(() => database.drop());

  const rows = () => database.db.webhookDelivery.findMany({ where: { eventId }, orderBy: [{ endpointId: 'asc' }, { attempt: 'asc' }] });

  it('logs an attempt pending once, even when it runs again', async () => {
    const key = { eventId, endpointId: endpointIds[0]!, attempt: 1 };
    expect(await startAttempt(database.db, key, 'msg_a')).toMatchObject({ url: 'https://example.test/a', secret: 'whsec_x' });
    const [logged] = await rows();
    expect(logged).toMatchObject({ attempt: 1, status: 'pending', webhookId: 'msg_a' });
    // A second run of the same attempt (its dispatcher died mid-request) finds the row and leaves it.
    expect(await startAttempt(database.db, key, 'msg_a')).toBeDefined();
    expect(await rows()).toEqual([logged]);
  });

  it('runs a first attempt taken from the list only while no attempt of its delivery has ended', async () => {
    const first = await database.db.outboxEvent.findUniqueOrThrow({ where: { id: eventId } });
    const other = await database.db.outboxEvent.create({
      data: { type: 'document.ready', organizationId: first.organizationId, isUat: false, subjectId: first.subjectId, payload: first.payload! },
    });
    const key = { eventId: other.id, endpointId: endpointIds[0]!, attempt: 1 };
    expect(await startAttempt(database.db, key, 'msg_c', true)).toBeDefined(); // nothing logged yet
    expect(await startAttempt(database.db, key, 'msg_c', true)).toBeDefined(); // pending: its dispatcher died mid-request
    await database.db.webhookDelivery.updateMany({ where: { eventId: other.id }, data: { status: 'failed' } });
    // Offered again after it failed (a second publish, an entry given back late): the retry job sends attempt 2, not this.
    expect(await startAttempt(database.db, key, 'msg_c', true)).toBeUndefined();
    expect(await startAttempt(database.db, { ...key, attempt: 2 }, 'msg_c')).toBeDefined();
  });

  it('settles each attempt once the next is logged, and the last one when it fails: only a live attempt holds its delivery open', async () => {
    const first = await database.db.outboxEvent.findUniqueOrThrow({ where: { id: eventId } });
    const other = await database.db.outboxEvent.create({
      data: { type: 'document.ready', organizationId: first.organizationId, isUat: false, subjectId: first.subjectId, payload: first.payload! },
    });
    const delivery = { eventId: other.id, endpointId: endpointIds[0]! };
    const outcomes = new AttemptOutcomes(database.db, { windowMs: 0, maxBatch: 1 });
    const settled = async (endpointId = delivery.endpointId) =>
      (await database.db.webhookDelivery.findMany({ where: { eventId: other.id, endpointId }, orderBy: { attempt: 'asc' } })).map((row) => [
        row.attempt,
        row.status,
        row.settled,
      ]);
    const failed = { status: 'failed', responseStatus: 503, error: 'HTTP 503', durationMs: 5 } as const;

    await startAttempt(database.db, { ...delivery, attempt: 1 }, 'msg_s');
    await outcomes.record({ ...delivery, attempt: 1 }, failed);
    expect(await settled()).toEqual([[1, 'failed', false]]); // the retry's wait: this failure holds the delivery open
    await startAttempt(database.db, { ...delivery, attempt: 2 }, 'msg_s');
    expect(await settled()).toEqual([
      [1, 'failed', true],
      [2, 'pending', false],
    ]);
    await startAttempt(database.db, { ...delivery, attempt: 2 }, 'msg_s'); // run again after its dispatcher died: changes nothing
    await outcomes.record({ ...delivery, attempt: 2 }, failed);
    for (const attempt of [3, 4]) {
      await startAttempt(database.db, { ...delivery, attempt }, 'msg_s');
      await outcomes.record({ ...delivery, attempt }, failed);
    }
    expect(await settled()).toEqual([
      [1, 'failed', true],
      [2, 'failed', true],
      [3, 'failed', true],
      [4, 'failed', true], // the last allowed: the delivery is over
    ]);

    // A lower attempt started late (a stalled job's, run again) settles nothing after it.
    const late = { eventId: other.id, endpointId: endpointIds[1]! };
    await startAttempt(database.db, { ...late, attempt: 3 }, 'msg_t');
    await startAttempt(database.db, { ...late, attempt: 2 }, 'msg_t');
    expect(await settled(endpointIds[1])).toEqual([
      [2, 'pending', false],
      [3, 'pending', false],
    ]);
    await database.db.webhookDelivery.deleteMany({ where: late });

    // Another endpoint's delivery of the same event is its own: nothing of it settles.
    await startAttempt(database.db, { eventId: other.id, endpointId: endpointIds[1]!, attempt: 1 }, 'msg_t');
    await outcomes.record({ eventId: other.id, endpointId: endpointIds[1]!, attempt: 1 }, failed);
    expect(await settled(endpointIds[1])).toEqual([[1, 'failed', false]]);
    expect((await settled()).map(([, , isSettled]) => isSettled)).toEqual([true, true, true, true]);
  });

  it('writes the outcomes of attempts that end together in one statement, each caller waiting for it', async () => {
    for (const endpointId of endpointIds) await startAttempt(database.db, { eventId, endpointId, attempt: 2 }, `msg_${endpointId}`);
    const outcomes = new AttemptOutcomes(database.db, { windowMs: 60_000, maxBatch: 500 });
    const written = Promise.all([
      outcomes.record({ eventId, endpointId: endpointIds[0]!, attempt: 2 }, { status: 'succeeded', responseStatus: 204, error: null, durationMs: 12 }),
      outcomes.record({ eventId, endpointId: endpointIds[1]!, attempt: 2 }, { status: 'failed', responseStatus: 500, error: 'HTTP 500', durationMs: 30 }),
    ]);
    // Nothing is written before the window ends (60 s here), so nothing settles before the flush.
    let settled = false;
    void written.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect((await rows()).filter((row) => row.attempt === 2).map((row) => row.status)).toEqual(['pending', 'pending']);

    await outcomes.flush();
    await written;
    const second = (await rows()).filter((row) => row.attempt === 2);
    const outcome = ({ endpointId, status, responseStatus, error, durationMs }: (typeof second)[number]) => ({
      endpointId,
      status,
      responseStatus,
      error,
      durationMs,
    });
    expect(second.map(outcome)).toEqual(
      expect.arrayContaining([
        { endpointId: endpointIds[0], status: 'succeeded', responseStatus: 204, error: null, durationMs: 12 },
        { endpointId: endpointIds[1], status: 'failed', responseStatus: 500, error: 'HTTP 500', durationMs: 30 },
      ]),
    );
  });

  it('writes as soon as maxBatch outcomes have gathered, without waiting for the window', async () => {
    const failing = { eventId, endpointId: endpointIds[1]! }; // the endpoint whose delivery has not succeeded
    for (const attempt of [5, 6]) await startAttempt(database.db, { ...failing, attempt }, `msg_${attempt}`);
    const outcomes = new AttemptOutcomes(database.db, { windowMs: 60_000, maxBatch: 2 });
    await Promise.all(
      [5, 6].map((attempt) => outcomes.record({ ...failing, attempt }, { status: 'failed', responseStatus: 503, error: 'HTTP 503', durationMs: 5 })),
    );
    expect((await rows()).filter((row) => row.attempt >= 5).map((row) => row.status)).toEqual(['failed', 'failed']);
  });

  it('fails every caller of a write that fails, so none of their jobs ends as if logged', async () => {
    const outcomes = new AttemptOutcomes(database.db, { windowMs: 60_000, maxBatch: 500 });
    const bad = { eventId, endpointId: endpointIds[1]!, attempt: 3 }; // the endpoint whose delivery has not succeeded
    for (const attempt of [3, 4]) await startAttempt(database.db, { ...bad, attempt }, 'msg_a');
    const recorded = [
      outcomes.record(bad, { status: 'succeeded', responseStatus: 200, error: null, durationMs: 1 }),
      // An outcome the column refuses (status outside its check) fails the whole statement.
      outcomes.record({ ...bad, attempt: 4 }, { status: 'nonsense' as 'failed', responseStatus: null, error: null, durationMs: 1 }),
    ];
    void outcomes.flush();
    for (const result of await Promise.allSettled(recorded)) expect(result.status).toBe('rejected');
  });
});
