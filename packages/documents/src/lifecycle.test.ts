import { WebhookEventPayload } from '@docgen/contracts';
import type { Prisma } from '@docgen/db';
import { createLogger } from '@docgen/observability';
import {
  FirstAttempts,
  createRedisConnection,
  createRenderQueue,
  deleteRenderSecrets,
  deliveryJobId,
  pendingRenderJobIds,
  readRenderSecrets,
  renderJobId,
} from '@docgen/queue';
import {
  createTestDatabase,
  eventually,
  interceptSql,
  seedOrganization,
  startRedisServer,
  uniqueId,
  type RedisServer,
  type TestDatabase,
} from '@docgen/testing';
import { ACTIVE_COUNT_FRESH_MS, ActiveDocumentCounts } from './active-document-counts';
import { createBulkJob } from './bulk-jobs/create-bulk-job';
import { createDocument, DocumentInserts, NOT_QUEUED_MESSAGE } from './create-document';
import { DocumentError } from './errors';
import { buildEventPayload } from './events/envelope';
import { OutboxRelay } from './events/outbox-relay';
import { sendTestEvent } from './events/test-event';
import { queueNewGeneration } from './queue-new-generation';

/** The domain functions against real PostgreSQL and Redis, with a Redis that is down where they must undo. */
describe('a document’s life (domain functions)', () => {
  let database: TestDatabase;
  const redis = createRedisConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
  const prefix = `test:${uniqueId()}:`;
  const renderQueue = createRenderQueue(redis, prefix);
  const firstAttempts = new FirstAttempts(redis, prefix);
  const logger = createLogger('test', 'silent');
  // Queues on a private Redis that is stopped once they are connected: Redis gone mid-life.
  let privateRedis: RedisServer;
  let deadRedis: ReturnType<typeof createRedisConnection>;
  let downRenderQueue: ReturnType<typeof createRenderQueue>;
  let organizationId: string;
  let otherOrganizationId: string;
  let templateId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    privateRedis = await startRedisServer();
    deadRedis = createRedisConnection(privateRedis.url, 'request');
    deadRedis.on('error', () => undefined);
    downRenderQueue = createRenderQueue(deadRedis, prefix);
    downRenderQueue.on('error', () => undefined);
    await downRenderQueue.waitUntilReady();
    await privateRedis.stop();
    ({ organizationId } = await seedOrganization(database.db));
    ({ organizationId: otherOrganizationId } = await seedOrganization(database.db));
    const template = await database.db.template.create({
      data: { organizationId, name: 'letter', format: 'docx', fileKey: 'templates/letter.docx', fileSize: 10, variables: [{ name: 'name', type: 'text' }] },
    });
    templateId = template.id;
  });

  afterAll(async () => {
    await renderQueue.obliterate({ force: true });
    await renderQueue.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    deadRedis.disconnect();
    await privateRedis.stop();
    await database.drop();
  });

  const body = (name = 'Ada') => ({ template_id: templateId, input_json: { name }, output_format: 'pdf' as const });
  const errorOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  it('creates a document with one render job; another organisation’s template is template_not_found, never an HTTP error', async () => {
    const { document, outcome } = await createDocument(
      { db: database.db, renderQueue },
      { organizationId, body: body(), isUat: false, idempotencyKey: undefined, maxActivePerOrg: 10_000 },
    );
    expect(outcome).toBe('created');
    expect(await pendingRenderJobIds(renderQueue)).toContain(renderJobId({ documentId: document.id, generation: 1 }));

    const error = await errorOf(
      createDocument(
        { db: database.db, renderQueue },
        { organizationId: otherOrganizationId, body: body(), isUat: false, idempotencyKey: undefined, maxActivePerOrg: 10_000 },
      ),
    );
    expect(error).toBeInstanceOf(DocumentError);
    expect(error).toMatchObject({ code: 'template_not_found', message: 'Template not found' });
  });

  it('replays an idempotency key, and refuses it for another body with a problem naming the header', async () => {
    const key = `key-${uniqueId()}`;
    const first = await createDocument(
      { db: database.db, renderQueue },
      { organizationId, body: body(), isUat: false, idempotencyKey: key, maxActivePerOrg: 10_000 },
    );
    const again = await createDocument(
      { db: database.db, renderQueue },
      { organizationId, body: body(), isUat: false, idempotencyKey: key, maxActivePerOrg: 10_000 },
    );
    expect(again).toMatchObject({ outcome: 'replayed', document: { id: first.document.id } });
    const error = await errorOf(
      createDocument({ db: database.db, renderQueue }, { organizationId, body: body('Grace'), isUat: false, idempotencyKey: key, maxActivePerOrg: 10_000 }),
    );
    expect(error).toMatchObject({
      code: 'idempotency_key_reused',
      problems: [{ path: 'X-Idempotency-Key', message: 'was used before with a different body' }],
    });
  });

  it('inserts the requests made together in one statement, each with its own answer', async () => {
    let insertStatements = 0;
    const db = interceptSql(database.db, (statement) => {
      if (statement.name === 'insert-document' || statement.name === 'insert-documents') insertStatements += 1;
      return undefined;
    });
    // A queue of its own: these jobs would fill the render list the other tests read.
    const ownQueue = createRenderQueue(redis, `${prefix}grouped:`);
    const deps = { db, renderQueue: ownQueue, documentInserts: new DocumentInserts(db) };
    const key = `key-${uniqueId()}`;
    // Quotes, backslashes, a JSON-looking string and characters outside the BMP travel inside the group's JSON intact.
    const TRICKY = 'Ada "the" \\ countess\u2019s {"a":[1]} ✓ 😀';
    const request = (overrides: Partial<Parameters<typeof createDocument>[1]> = {}, name = 'Ada') => ({
      organizationId,
      body: body(name),
      isUat: false,
      idempotencyKey: undefined,
      maxActivePerOrg: 10_000,
      ...overrides,
    });
    const outcomes = await Promise.allSettled([
      ...Array.from({ length: 6 }, (_, i) => createDocument(deps, request({}, `${TRICKY} ${i}`))),
      createDocument(deps, request({ organizationId: otherOrganizationId })),
      createDocument(deps, request({ body: { ...body(), template_version: 99 } })),
      createDocument(deps, request({ idempotencyKey: key })),
      createDocument(deps, request({ idempotencyKey: key })),
    ]);
    const created = outcomes.slice(0, 6).map((outcome) => (outcome as PromiseFulfilledResult<Awaited<ReturnType<typeof createDocument>>>).value);
    expect(created.map((result) => result.outcome)).toEqual(Array(6).fill('created'));
    for (const [i, { document }] of created.entries()) {
      const row = await database.db.document.findUniqueOrThrow({ where: { id: document.id } });
      expect(row).toMatchObject({ organizationId, status: 'queued', inputJson: { name: `${TRICKY} ${i}` }, generation: document.generation });
    }
    expect(outcomes[6]).toMatchObject({ status: 'rejected', reason: { code: 'template_not_found' } });
    expect(outcomes[7]).toMatchObject({ status: 'rejected', reason: { code: 'version_not_found' } });
    // The same key twice in one statement: the unique index refuses the statement, each request is inserted again alone, one wins.
    const keyed = outcomes.slice(8).map((outcome) => (outcome as PromiseFulfilledResult<Awaited<ReturnType<typeof createDocument>>>).value);
    expect(keyed.map((result) => result.outcome).sort()).toEqual(['created', 'replayed']);
    expect(keyed[0]!.document.id).toBe(keyed[1]!.document.id);
    expect(await database.db.document.count({ where: { organizationId, idempotencyKey: key } })).toBe(1);
    // Ten requests, far fewer statements: two went at once, the rest together.
    expect(insertStatements).toBeLessThan(10);
    await ownQueue.close();
  });

  /** An organisation of its own with one template: its documents in progress are its alone. */
  const organizationWithTemplate = async () => {
    const { organizationId: owner } = await seedOrganization(database.db);
    const template = await database.db.template.create({
      data: {
        organizationId: owner,
        name: 'letter',
        format: 'docx',
        fileKey: `templates/${owner}.docx`,
        fileSize: 10,
        variables: [{ name: 'name', type: 'text' }],
      },
    });
    return { owner, template };
  };

  it('holds MAX_ACTIVE_PER_ORG inside a group: its requests count one another, as if inserted in turn', async () => {
    const { owner, template } = await organizationWithTemplate();
    const ownQueue = createRenderQueue(redis, `${prefix}capped:`);
    const deps = { db: database.db, renderQueue: ownQueue, documentInserts: new DocumentInserts(database.db) };
    const request = { organizationId: owner, body: { ...body(), template_id: template.id }, isUat: false, idempotencyKey: undefined, maxActivePerOrg: 4 };
    await createDocument(deps, request);
    await createDocument(deps, request);
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => createDocument(deps, request)));
    const created = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
    // Two requests go alone at once and may both pass the count of 2; the eight gathered behind them
    // count those two and one another, so at most one more than the cap (a single still in flight) is inserted, not 2 + 10.
    expect(created).toBeGreaterThanOrEqual(2);
    expect(created).toBeLessThanOrEqual(3);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'too_many_in_progress' });
    expect(await database.db.document.count({ where: { organizationId: owner } })).toBe(2 + created);
    await ownQueue.close();
  });

  it('refuses a document past MAX_ACTIVE_PER_ORG with too_many_in_progress, for that organisation alone, and counts again once one finishes', async () => {
    const { owner: busy, template: busyTemplate } = await organizationWithTemplate();
    const quiet = await organizationWithTemplate();
    const request = (owner: string, template: string) => ({
      organizationId: owner,
      body: { ...body(), template_id: template },
      isUat: false,
      idempotencyKey: undefined,
      maxActivePerOrg: 2,
    });
    const first = await createDocument({ db: database.db, renderQueue }, request(busy, busyTemplate.id));
    await createDocument({ db: database.db, renderQueue }, request(busy, busyTemplate.id));
    const error = await errorOf(createDocument({ db: database.db, renderQueue }, request(busy, busyTemplate.id)));
    expect(error).toMatchObject({ code: 'too_many_in_progress', message: 'Too many documents in progress for this organisation; try again later.' });
    // An unknown template is still template_not_found, whatever the organisation's load.
    expect(await errorOf(createDocument({ db: database.db, renderQueue }, request(busy, templateId)))).toMatchObject({ code: 'template_not_found' });
    // Another organisation is not counted against it.
    await expect(createDocument({ db: database.db, renderQueue }, request(quiet.owner, quiet.template.id))).resolves.toMatchObject({ outcome: 'created' });

    await database.db.document.update({ where: { id: first.document.id }, data: { status: 'ready' } });
    await expect(createDocument({ db: database.db, renderQueue }, request(busy, busyTemplate.id))).resolves.toMatchObject({ outcome: 'created' });
  });

  it('counts documents in progress once per ACTIVE_COUNT_FRESH_MS with a replica’s counts, and still refuses at the cap', async () => {
    const { owner, template } = await organizationWithTemplate();
    let clock = Date.now();
    const deps = { db: database.db, renderQueue, activeCounts: new ActiveDocumentCounts(() => clock) };
    const request = { organizationId: owner, body: { ...body(), template_id: template.id }, isUat: false, idempotencyKey: undefined, maxActivePerOrg: 3 };
    const inProgress = () => database.db.document.count({ where: { organizationId: owner, status: { in: ['queued', 'rendering'] } } });

    await createDocument(deps, request); // counted: 0 before it
    // Another replica adds two while this one's count is fresh: unseen, so two more pass (the documented bound).
    for (const name of ['x', 'y'])
      await database.db.document.create({
        data: { organizationId: owner, templateId: template.id, inputFormat: 'docx', outputFormat: 'pdf', inputJson: { name } },
      });
    await createDocument(deps, request);
    await createDocument(deps, request);
    expect(await inProgress()).toBe(5);
    // Its own inserts reach the cap: the next one counts in PostgreSQL and is refused.
    expect(await errorOf(createDocument(deps, request))).toMatchObject({ code: 'too_many_in_progress' });
    expect(await inProgress()).toBe(5);

    // At the cap every request counts, so places come back as soon as documents finish.
    await database.db.document.updateMany({ where: { organizationId: owner }, data: { status: 'ready' } });
    await expect(createDocument(deps, request)).resolves.toMatchObject({ outcome: 'created' });
    // Another replica fills the organisation up; once this replica's count is stale it counts and sees it.
    for (const name of ['x', 'y'])
      await database.db.document.create({
        data: { organizationId: owner, templateId: template.id, inputFormat: 'docx', outputFormat: 'pdf', inputJson: { name } },
      });
    clock += ACTIVE_COUNT_FRESH_MS + 1;
    expect(await errorOf(createDocument(deps, request))).toMatchObject({ code: 'too_many_in_progress' });
    expect(await inProgress()).toBe(3);
    // An unknown template is template_not_found on the uncounted path too.
    await database.db.document.updateMany({ where: { organizationId: owner }, data: { status: 'ready' } });
    await createDocument(deps, request);
    expect(await errorOf(createDocument(deps, { ...request, body: { ...request.body, template_id: templateId } }))).toMatchObject({
      code: 'template_not_found',
    });
  });

  it('holds MAX_ACTIVE_PER_ORG against concurrent bulk jobs and against retries of failed documents under their keys', async () => {
    const { owner, template } = await organizationWithTemplate();
    // A queue of its own: these documents must not fill the one the other cases look into.
    const renderQueue = createRenderQueue(redis, `test:${uniqueId()}:`);
    const rows = Array.from({ length: 10 }, (_, i) => ({ rowNumber: i + 2, input: { name: `Row ${i}` } }));
    const bulk = () =>
      createBulkJob(
        { db: database.db, renderQueue },
        { organizationId: owner, template, templateVersion: 1, isUat: false, outputFormat: 'docx', rows, maxActivePerOrg: 25 },
      ).then(
        () => 'created',
        (error: DocumentError) => error.code,
      );
    const outcomes = await Promise.all(Array.from({ length: 6 }, bulk));
    expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(2);
    expect(outcomes.filter((outcome) => outcome === 'too_many_in_progress')).toHaveLength(4);
    expect(await database.db.document.count({ where: { organizationId: owner, status: { in: ['queued', 'rendering'] } } })).toBe(20);

    // A failed document retried under its key goes back in progress: refused while at the cap.
    const key = `retry-${uniqueId()}`;
    const request = { organizationId: owner, body: { ...body(), template_id: template.id }, isUat: false, idempotencyKey: key, maxActivePerOrg: 21 };
    const { document } = await createDocument({ db: database.db, renderQueue }, request);
    await database.db.document.update({ where: { id: document.id }, data: { status: 'failed', errorMessage: 'x' } });
    await database.db.document.create({
      data: { organizationId: owner, templateId: template.id, inputFormat: 'docx', outputFormat: 'pdf', inputJson: {}, status: 'queued' },
    });
    expect(await errorOf(createDocument({ db: database.db, renderQueue }, request))).toMatchObject({ code: 'too_many_in_progress' });
    expect((await database.db.document.findUniqueOrThrow({ where: { id: document.id } })).status).toBe('failed');
    await renderQueue.obliterate({ force: true });
    await renderQueue.close();
  });

  it('takes a document back when its job cannot be queued', async () => {
    const before = await database.db.document.count();
    const error = await errorOf(
      createDocument(
        { db: database.db, renderQueue: downRenderQueue },
        { organizationId, body: body(), isUat: false, idempotencyKey: undefined, maxActivePerOrg: 10_000 },
      ),
    );
    expect(error).toMatchObject({ code: 'queue_unavailable' });
    expect(await database.db.document.count()).toBe(before);
  });

  it('keeps a keyed document whose job cannot be queued, failed without an event, so a replay already answered stays true and a retry under the key re-queues it', async () => {
    const key = `key-${uniqueId()}`;
    const request = { organizationId, body: body(), isUat: false, idempotencyKey: key, maxActivePerOrg: 10_000 };
    // Another request with the key replays the row between its insert and the failed enqueue: its client now holds the id.
    let replayedId: string | undefined;
    const db = interceptSql(database.db, (statement, run) => {
      if (statement.name !== 'insert-document') return undefined;
      return run().then(async (rows) => {
        const other = await createDocument({ db: database.db, renderQueue }, request);
        expect(other.outcome).toBe('replayed');
        replayedId = other.document.id;
        return rows;
      });
    });
    const error = await errorOf(createDocument({ db, renderQueue: downRenderQueue }, request));
    expect(error).toMatchObject({ code: 'queue_unavailable' });

    const row = await database.db.document.findUniqueOrThrow({ where: { id: replayedId! } });
    expect(row).toMatchObject({ status: 'failed', errorMessage: NOT_QUEUED_MESSAGE, idempotencyKey: key });
    // No document.failed: the retry below makes it ready under the same id, and receivers deduplicate on job_id (API.md).
    expect(await database.db.outboxEvent.count({ where: { subjectId: row.id } })).toBe(0);

    const retried = await createDocument({ db: database.db, renderQueue }, request);
    expect(retried).toMatchObject({ outcome: 'created', document: { id: row.id, status: 'queued', generation: 2 } });
    expect(await pendingRenderJobIds(renderQueue)).toContain(renderJobId({ documentId: row.id, generation: 2 }));
  });

  it('retries a failed document under a new generation with fresh attempts, and puts it back as it was when Redis refuses the job', async () => {
    const failedAt = new Date('2026-01-02T03:04:05.000Z');
    const failed = await database.db.document.create({
      data: {
        organizationId,
        templateId,
        inputFormat: 'docx',
        outputFormat: 'pdf',
        inputJson: { name: 'Ada' },
        status: 'failed',
        errorMessage: 'Missing value for "name"',
        completedAt: failedAt,
        renderAttempts: 3,
        renderingStartedAt: failedAt,
      },
    });

    const error = await errorOf(queueNewGeneration(database.db, downRenderQueue, failed, 'failed'));
    expect(error).toMatchObject({ code: 'queue_unavailable' });
    expect(await database.db.document.findUniqueOrThrow({ where: { id: failed.id } })).toMatchObject({
      status: 'failed',
      generation: 1,
      errorMessage: 'Missing value for "name"',
      completedAt: failedAt,
      renderAttempts: 3,
    });

    const retried = await queueNewGeneration(database.db, renderQueue, failed, 'failed');
    expect(retried).toMatchObject({ status: 'queued', generation: 2, renderAttempts: 0, errorMessage: null, completedAt: null });
    expect(await pendingRenderJobIds(renderQueue)).toContain(renderJobId({ documentId: failed.id, generation: 2 }));
    // The attempt it saw is gone: a second retry of the same failure changes nothing.
    expect(await queueNewGeneration(database.db, renderQueue, failed, 'failed')).toBeUndefined();
  });

  it('retries a failed document of a deleted template while its files stay; a retry racing the sweep’s claim is refused (purged) and drops the passwords it stored', async () => {
    const doomed = await database.db.template.create({
      data: { organizationId, name: 'doomed', format: 'docx', fileKey: 'templates/doomed.docx', fileSize: 10, variables: [{ name: 'name', type: 'text' }] },
    });
    const request = {
      organizationId,
      body: { ...body(), template_id: doomed.id, pdf_options: { password: 'open sesame' } },
      isUat: false,
      idempotencyKey: `key-${uniqueId()}`,
      maxActivePerOrg: 10_000,
    };
    const fail = (id: string) => database.db.document.update({ where: { id }, data: { status: 'failed', errorMessage: 'Missing value for "name"' } });
    const { document } = await createDocument({ db: database.db, renderQueue }, request);
    await fail(document.id);
    await database.db.template.update({ where: { id: doomed.id }, data: { deletedAt: new Date() } });

    // Deleted, its files still there: retried as API.md §3 says.
    expect(await createDocument({ db: database.db, renderQueue }, request)).toMatchObject({
      outcome: 'created',
      document: { status: 'queued', generation: 2 },
    });
    await fail(document.id);
    await deleteRenderSecrets(renderQueue, document.id);

    // The sweep claims the template (its row locked) while the retry is on its way; the retry waits for the lock, then sees the claim.
    const { retrying } = await database.db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM templates WHERE id = ${doomed.id}::uuid FOR UPDATE`;
      const retrying = errorOf(createDocument({ db: database.db, renderQueue }, request));
      const waiting = () =>
        database.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`;
      await eventually(async () => (await waiting())[0]!.n > 0, 'the retry waiting for the template’s row');
      await tx.$executeRaw`UPDATE templates SET files_purge_started_at = now() WHERE id = ${doomed.id}::uuid`;
      return { retrying }; // awaited after the commit lets it go
    });
    expect(await retrying).toMatchObject({ code: 'purged' });
    expect(await database.db.document.findUniqueOrThrow({ where: { id: document.id } })).toMatchObject({ status: 'failed', generation: 2 });
    expect(await readRenderSecrets(renderQueue, document.id)).toBeUndefined();
    // Asked again, refused at once.
    expect(await errorOf(createDocument({ db: database.db, renderQueue }, request))).toMatchObject({ code: 'purged' });

    const merge = await database.db.document.create({
      data: {
        organizationId,
        inputFormat: 'pdf',
        outputFormat: 'pdf',
        inputJson: {},
        mergedFrom: [document.id, document.id],
        status: 'failed',
        errorMessage: 'x',
      },
    });
    expect(await queueNewGeneration(database.db, renderQueue, merge, 'failed')).toMatchObject({ status: 'queued', generation: 2 });
  });

  it('sends webhook.test through the outbox to its endpoint alone, a late-published event only to endpoints older than it, and takes the event back when Redis is down', async () => {
    const endpoint = (events: string[], createdAt = new Date(Date.now() - 120_000)) =>
      database.db.webhookEndpoint.create({ data: { organizationId, url: `https://example.test/${uniqueId()}`, events, secret: 'whsec_x', createdAt } });
    const target = await endpoint(['document.failed']);
    const sibling = await endpoint(['document.ready', 'document.failed', 'bulk.completed']);
    const relay = new OutboxRelay(database.db, firstAttempts, logger);

    const jobId = await sendTestEvent({ db: database.db, relay }, target);
    await relay.flushMarks();
    const event = await database.db.outboxEvent.findFirstOrThrow({ where: { type: 'webhook.test', subjectId: jobId } });
    expect(event.publishedAt).not.toBeNull();
    expect(WebhookEventPayload.parse(event.payload)).toMatchObject({ job_id: jobId, event: 'webhook.test', data: { endpoint_id: target.id } });
    let offered = (await firstAttempts.pendingJobIds())!;
    expect(offered.has(deliveryJobId({ eventId: event.id, endpointId: target.id }))).toBe(true);
    expect(offered.has(deliveryJobId({ eventId: event.id, endpointId: sibling.id }))).toBe(false);

    // The subscription rule, as the outbox sweep applies it to a test event left unpublished: its endpoint only.
    const stranded = await database.db.outboxEvent.create({
      data: {
        type: 'webhook.test',
        organizationId,
        isUat: false,
        subjectId: jobId,
        payload: buildEventPayload('webhook.test', jobId, new Date(), {
          endpoint_id: target.id,
          message: 'A test event from docgen',
        }) as Prisma.InputJsonObject,
        createdAt: new Date(Date.now() - 60_000),
      },
    });
    await relay.sweep();
    offered = (await firstAttempts.pendingJobIds())!;
    expect(offered.has(deliveryJobId({ eventId: stranded.id, endpointId: target.id }))).toBe(true);
    expect(offered.has(deliveryJobId({ eventId: stranded.id, endpointId: sibling.id }))).toBe(false);
    await database.db.outboxEvent.delete({ where: { id: stranded.id } });

    // A document event left unpublished goes to the endpoints that existed when it was written, not to one created since.
    const late = await endpoint(['document.ready'], new Date());
    const strandedReady = await database.db.outboxEvent.create({
      data: {
        type: 'document.ready',
        organizationId,
        isUat: false,
        subjectId: jobId,
        payload: { event: 'document.ready', job_id: jobId }, // not read by the sweep
        createdAt: new Date(Date.now() - 60_000),
      },
    });
    await relay.sweep();
    offered = (await firstAttempts.pendingJobIds())!;
    expect(offered.has(deliveryJobId({ eventId: strandedReady.id, endpointId: sibling.id }))).toBe(true);
    expect(offered.has(deliveryJobId({ eventId: strandedReady.id, endpointId: late.id }))).toBe(false);
    // Right after a commit (the fast path) no clock is compared: the subscribers are those of now.
    await relay.publish({ id: strandedReady.id, type: 'document.ready' });
    offered = (await firstAttempts.pendingJobIds())!;
    expect(offered.has(deliveryJobId({ eventId: strandedReady.id, endpointId: late.id }))).toBe(true);
    await database.db.outboxEvent.delete({ where: { id: strandedReady.id } });
    await database.db.webhookEndpoint.delete({ where: { id: late.id } });

    const downRelay = new OutboxRelay(database.db, new FirstAttempts(deadRedis, prefix), logger);
    const error = await errorOf(sendTestEvent({ db: database.db, relay: downRelay }, target));
    expect(error).toMatchObject({ code: 'queue_unavailable' });
    expect(await database.db.outboxEvent.count({ where: { type: 'webhook.test', organizationId } })).toBe(1);
  });

  it('builds every event kind in the contract’s shape and refuses one that is not', () => {
    const occurredAt = new Date('2026-11-24T10:00:00.000Z');
    const test = buildEventPayload('webhook.test', '6f1c1c52-3c55-4a3e-9a55-9d1f1a0f7f11', occurredAt, {
      endpoint_id: '0b5e1f1e-8d1f-4c8e-b1f4-2b0f7b1f3e21',
      message: 'A test event from docgen',
    });
    expect(test).toEqual({
      job_id: '6f1c1c52-3c55-4a3e-9a55-9d1f1a0f7f11',
      event: 'webhook.test',
      occurred_at: '2026-11-24T10:00:00.000Z',
      data: { endpoint_id: '0b5e1f1e-8d1f-4c8e-b1f4-2b0f7b1f3e21', message: 'A test event from docgen' },
    });
    // A bulk job's event with a document's data is not an event API.md describes.
    expect(() => buildEventPayload('bulk.completed', test.job_id, occurredAt, test.data as never)).toThrow();
  });
});
