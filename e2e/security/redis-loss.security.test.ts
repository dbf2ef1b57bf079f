import { Redis } from 'ioredis';
import {
  apiClient,
  buildDocx,
  makeTestCertificates,
  paragraph,
  startHttpsReceiver,
  startRedisServer,
  startStack,
  type ApiClient,
  type HttpsReceiver,
  type RedisServer,
  type RunningService,
  type Stack,
} from '@docgen/testing';
import { eventually, settledDeliveryLog } from '../webhooks/helpers';

/**
 * Redis restarted without persistence loses every job. Nothing may be lost with it: queued
 * documents get a job again (the render worker's stuck-document sweep) and unfinished webhook deliveries are
 * found again from PostgreSQL (dispatcher's recovery). Runs on a private redis-server: the
 * shared one on 6379 is never flushed.
 */
describe('Redis losing its data loses no render job and no webhook delivery', () => {
  let redisServer: RedisServer;
  let stack: Stack;
  let receiver: HttpsReceiver;
  let api: ApiClient;
  let dispatcher: RunningService;
  const RETRY_BASE_MS = 3_000;
  /** Set by the first test, used by the next: the endpoint and template of this organisation. */
  let hookId: string;
  let templateId: string;
  const create = async (name: string) => {
    const res = await api.call('POST', '/api/v1/documents', { template_id: templateId, input_json: { name }, output_format: 'docx' });
    expect(res.status).toBe(202);
    return res.body.id as string;
  };
  const attemptsOf = (log: { job_id: string; attempt: number; status: string }[], id: string) =>
    log
      .filter((entry) => entry.job_id === id)
      .map((entry) => [entry.attempt, entry.status])
      .sort();
  const arrivalsOf = (id: string) => receiver.received.filter((request) => (JSON.parse(request.body) as { job_id: string }).job_id === id);

  beforeAll(async () => {
    redisServer = await startRedisServer();
    const certificates = makeTestCertificates();
    // The very first request fails, so that delivery is waiting for its retry when Redis is flushed.
    receiver = await startHttpsReceiver(certificates, (_path, nth) => (nth === 1 ? 500 : 200));
    stack = await startStack({
      env: {
        REDIS_URL: redisServer.url,
        OUTBOUND_ALLOW_PRIVATE: 'true',
        NODE_EXTRA_CA_CERTS: certificates.caPath,
        WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
        WEBHOOK_RECOVERY_INTERVAL_MS: '500',
        RENDER_TIMEOUT_MS: '10000',
      },
    });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    dispatcher = await stack.start('webhook-dispatcher');
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    await receiver.close();
    await redisServer.stop();
  });

  it('after FLUSHALL mid-flight, the delivery in retry is delivered and the queued document renders', async () => {
    const hook = await api.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/hook` });
    expect(hook.status).toBe(201);
    hookId = hook.body.id as string;
    templateId = (await api.uploadTemplate(buildDocx({ body: paragraph('Hello {name}') }), 'hello.docx')).id;

    // A delivery whose first attempt failed: its job waits in Redis for the retry.
    const first = await create('first');
    await api.waitForDocument(first);
    const [failedAttempt] = await settledDeliveryLog(api, hookId, 1);
    expect(failedAttempt).toMatchObject({ job_id: first, attempt: 1, status: 'failed', response_status: 500 });

    // A document queued while no render worker runs: its job too is only in Redis.
    await stack.workers[0]!.stop();
    const second = await create('second');
    const redis = new Redis(redisServer.url);
    expect(await redis.dbsize()).toBeGreaterThan(0);
    await redis.flushall();
    expect(await redis.dbsize()).toBe(0);
    redis.disconnect();
    expect((await api.call('GET', `/api/v1/documents/${second}`)).body.status).toBe('queued');

    await stack.start('render-worker');
    expect((await api.waitForDocument(second, ['ready', 'failed'], 60_000)).status).toBe('ready');

    // Both events arrive: the first's retry (attempt 2, continuing the count) and the second's.
    const log = await eventually(
      async () => {
        const entries = await settledDeliveryLog(api, hookId, 1);
        const done = (id: string) => entries.some((entry) => entry.job_id === id && entry.status === 'succeeded');
        return done(first) && done(second) && entries;
      },
      'both deliveries succeeded',
      60_000,
    );
    expect(attemptsOf(log, first)).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
    // Nothing arrives twice: the first's failed attempt and its retry, the second once.
    expect(arrivalsOf(first)).toHaveLength(2);
    expect(arrivalsOf(second)).toHaveLength(1);
  }, 180_000);

  it('a delivery lost before its first attempt is sent as attempt 1, and the log keeps no pending row', async () => {
    // The first attempt is logged pending with the event; its job waits in Redis while no dispatcher runs.
    await dispatcher.stop();
    const third = await create('third');
    await api.waitForDocument(third);
    const redis = new Redis(redisServer.url);
    await redis.flushall();
    redis.disconnect();
    dispatcher = await stack.start('webhook-dispatcher');

    // Settled: no row pending, the third's included (its first attempt was logged with its event).
    const log = await settledDeliveryLog(api, hookId, 1, 60_000);
    expect(attemptsOf(log, third)).toEqual([[1, 'succeeded']]);
    expect(arrivalsOf(third)).toHaveLength(1);
  }, 120_000);
});
