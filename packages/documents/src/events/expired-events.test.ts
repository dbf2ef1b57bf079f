import { createLogger } from '@docgen/observability';
import { createTestDatabase, rowsRead, seedOrganization, type TestDatabase } from '@docgen/testing';
import { FORGET_EXPIRED_EVENTS, forgetExpiredEvents } from './expired-events';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The webhook log's retention on real PostgreSQL: what it deletes, what it keeps, and what it reads to find it. */
describe('the webhook log retention', () => {
  let database: TestDatabase;
  let organizationId: string;
  let endpointId: string;
  const logger = createLogger('test', 'silent');

  beforeAll(async () => {
    database = await createTestDatabase();
    ({ organizationId } = await seedOrganization(database.db));
    endpointId = (
      await database.db.webhookEndpoint.create({ data: { organizationId, url: 'https://example.test/hook', events: ['document.ready'], secret: 'whsec_x' } })
    ).id;
  });
  afterAll(() => database.drop());

  /** `count` events created `daysAgo`, each with two attempts logged, published then (or `publishedDaysAgo`; null: not yet). */
  async function addEvents(count: number, daysAgo: number, publishedDaysAgo: number | null = daysAgo): Promise<string[]> {
    const rows = await database.db.sql.query<{ id: string }>(
      {
        text: `WITH events AS (
                 INSERT INTO outbox_events (type, organization_id, is_uat, subject_id, payload, created_at, published_at)
                 SELECT 'document.ready', $1, false, gen_random_uuid(), '{}', $3, $4 FROM generate_series(1, $5)
                 RETURNING id, subject_id
               ), attempts AS (
                 INSERT INTO webhook_deliveries (event_id, endpoint_id, attempt, event, job_id, webhook_id, status, created_at)
                 SELECT id, $2, attempt, 'document.ready', subject_id, 'msg_' || id, 'failed', $3 FROM events, generate_series(1, 2) AS attempt
               )
               SELECT id FROM events`,
      },
      [
        organizationId,
        endpointId,
        new Date(Date.now() - daysAgo * DAY_MS),
        publishedDaysAgo === null ? null : new Date(Date.now() - publishedDaysAgo * DAY_MS),
        count,
      ],
    );
    return rows.map((row) => row.id);
  }

  const remaining = async (ids: string[]) => ({
    events: await database.db.outboxEvent.count({ where: { id: { in: ids } } }),
    attempts: await database.db.webhookDelivery.count({ where: { eventId: { in: ids } } }),
  });

  it('deletes published events older than the retention with their delivery log, in batches, and keeps the rest', async () => {
    const expired = await addEvents(5, 31);
    const recent = await addEvents(3, 29);
    const unpublished = await addEvents(1, 31, null); // the outbox sweep's to publish first
    const publishedLate = await addEvents(1, 31, 0); // its deliveries are under way

    expect(await forgetExpiredEvents({ db: database.db, logger }, { retentionDays: 30, batchSize: 2 })).toEqual({ events: 5, attempts: 10 });
    expect(await remaining(expired)).toEqual({ events: 0, attempts: 0 });
    expect(await remaining(recent)).toEqual({ events: 3, attempts: 6 });
    expect(await remaining(unpublished)).toEqual({ events: 1, attempts: 2 });
    expect(await remaining(publishedLate)).toEqual({ events: 1, attempts: 2 });
    // Keeping everything (0) deletes nothing, whatever the age.
    expect(await forgetExpiredEvents({ db: database.db, logger }, { retentionDays: 0 })).toEqual({ events: 0, attempts: 0 });
  });

  it('lets several dispatchers run it at once without deleting twice', async () => {
    const expired = await addEvents(40, 45);
    const runs = await Promise.all([1, 2, 3].map(() => forgetExpiredEvents({ db: database.db, logger }, { retentionDays: 30, batchSize: 5, maxBatches: 100 })));
    expect(runs.reduce((sum, run) => sum + run.events, 0)).toBe(40);
    expect(runs.reduce((sum, run) => sum + run.attempts, 0)).toBe(80);
    expect(await remaining(expired)).toEqual({ events: 0, attempts: 0 });
  });

  it('passes over the events another run holds and deletes the rest without waiting', async () => {
    const held = await addEvents(2, 50); // the oldest: every run reaches them first
    const others = await addEvents(3, 49);
    await database.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM outbox_events WHERE id = ANY(${held}::uuid[]) FOR UPDATE`;
      // Without SKIP LOCKED this run would wait for the transaction, which waits for it: the test would time out.
      expect(await forgetExpiredEvents({ db: database.db, logger }, { retentionDays: 30 })).toEqual({ events: 3, attempts: 6 });
    });
    expect(await remaining(others)).toEqual({ events: 0, attempts: 0 });
    expect(await remaining(held)).toEqual({ events: 2, attempts: 4 });
    expect(await forgetExpiredEvents({ db: database.db, logger }, { retentionDays: 30 })).toEqual({ events: 2, attempts: 4 });
  });

  it("reads the expired events, not the month's", async () => {
    await addEvents(5_000, 1);
    const expired = await addEvents(3, 40);
    for (const table of ['outbox_events', 'webhook_deliveries']) await database.db.sql.query({ text: `ANALYZE ${table}` });
    // EXPLAIN ANALYZE runs the batch: the rows its plan read are the work it did.
    expect(await rowsRead(database.db, FORGET_EXPIRED_EVENTS, [new Date(Date.now() - 30 * DAY_MS), 100])).toBeLessThan(100);
    expect(await remaining(expired)).toEqual({ events: 0, attempts: 0 });
  });
});
