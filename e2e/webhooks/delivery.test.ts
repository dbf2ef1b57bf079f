import { Webhook } from 'standardwebhooks';
import {
  apiClient,
  buildDocx,
  makeTestCertificates,
  paragraph,
  startHttpsReceiver,
  startStack,
  type ApiClient,
  type HttpsReceiver,
  type RunningService,
  type Stack,
} from '@docgen/testing';
import { deliveryQueue, eventually, settledDeliveryLog } from './helpers';

describe('webhook delivery (gateway, render worker and dispatcher processes; HTTPS receiver with a test CA)', () => {
  let stack: Stack;
  let receiver: HttpsReceiver;
  let api: ApiClient;
  let dispatcher: RunningService;
  let queue: ReturnType<typeof deliveryQueue>;
  const RETRY_BASE_MS = 300;
  /** When each attempt reached /down, by the receiver's clock. */
  const downArrivals: number[] = [];

  beforeAll(async () => {
    const certificates = makeTestCertificates();
    receiver = await startHttpsReceiver(certificates, (path, nth) => {
      if (path === '/flaky') return nth <= 2 ? 500 : 200;
      if (path === '/down') {
        downArrivals.push(Date.now());
        return 503;
      }
      if (path === '/gone-retry') return 503;
      if (path === '/slow') return 'hang';
      if (path === '/kill') return nth === 1 ? 500 : 200;
      if (path === '/taken-over') return nth === 1 ? 'hang' : 200;
      return 200;
    });
    stack = await startStack({
      env: {
        OUTBOUND_ALLOW_PRIVATE: 'true',
        NODE_EXTRA_CA_CERTS: certificates.caPath,
        WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
        WEBHOOK_TIMEOUT_MS: '4000',
        WEBHOOK_LOCK_MS: '2000',
      },
    });
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    dispatcher = await stack.start('webhook-dispatcher');
    queue = deliveryQueue(stack);
  }, 120_000);
  afterAll(async () => {
    await queue.close();
    await stack.close();
    await receiver.close();
  });

  const register = async (client: ApiClient, path: string, events?: string[]) => {
    const res = await client.call('POST', '/api/v1/webhooks', { url: `${receiver.url}${path}`, ...(events ? { events } : {}) });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    return res.body as { id: string; secret: string };
  };
  const verify = (secret: string, hook: { body: string; headers: Record<string, unknown> }) =>
    new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>) as { event: string; job_id: string; data: { status: string } };

  it('delivers document.ready and document.failed to every subscribed endpoint, signed the Standard Webhooks way', async () => {
    const all = await register(api, '/all');
    const failedOnly = await register(api, '/failed-only', ['document.failed']);
    const template = await api.uploadTemplate(buildDocx({ body: paragraph('Hello {name}') }), 'hello.docx');
    const ready = await api.call('POST', '/api/v1/documents', { template_id: template.id, input_json: { name: 'Ada' }, output_format: 'docx' });
    const failed = await api.call('POST', '/api/v1/documents', { template_id: template.id, input_json: {}, output_format: 'docx' });

    const [first, second] = await receiver.waitFor('/all', 2);
    const byEvent = Object.fromEntries([first!, second!].map((hook) => [verify(all.secret, hook).event, hook]));
    const readyPayload = verify(all.secret, byEvent['document.ready']!);
    expect(readyPayload).toMatchObject({ job_id: ready.body.id, event: 'document.ready', data: { id: ready.body.id, status: 'ready', files: ['docx'] } });
    const failedPayload = verify(all.secret, byEvent['document.failed']!);
    expect(failedPayload).toMatchObject({ job_id: failed.body.id, data: { status: 'failed', error_message: 'Missing required token "name"' } });
    expect(byEvent['document.ready']!.headers['webhook-id']).toMatch(/^msg_/);
    expect(Math.abs(Number(byEvent['document.ready']!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(() => verify(failedOnly.secret, byEvent['document.ready']!)).toThrow();

    const [onlyFailure] = await receiver.waitFor('/failed-only', 1);
    expect(verify(failedOnly.secret, onlyFailure!)).toMatchObject({ event: 'document.failed', job_id: failed.body.id });
    // /all has received document.ready, so its fan-out is over: had /failed-only been picked, it would have a job or an attempt now.
    expect(await queue.wasGivenJob(ready.body.id, 'document.ready', all.id)).toBe(true);
    expect(await queue.wasGivenJob(ready.body.id, 'document.ready', failedOnly.id)).toBe(false);
    expect(receiver.received.filter((hook) => hook.path === '/failed-only')).toHaveLength(1);
    const log = await settledDeliveryLog(api, all.id, 2);
    expect(log).toHaveLength(2);
    expect(log.every((entry) => entry.status === 'succeeded' && entry.response_status === 200 && entry.attempt === 1)).toBe(true);
  });

  it('retries a receiver that fails twice: three attempts, one webhook-id, then success', async () => {
    const flaky = await register(api, '/flaky');
    const test = await api.call('POST', `/api/v1/webhooks/${flaky.id}/test`);
    expect(test.status).toBe(202);
    const attempts = await receiver.waitFor('/flaky', 3);
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    expect(verify(flaky.secret, attempts[2]!)).toMatchObject({ event: 'webhook.test', job_id: test.body.job_id });
    const log = await settledDeliveryLog(api, flaky.id, 3);
    expect(log.map((entry) => [entry.attempt, entry.status, entry.response_status])).toEqual([
      [3, 'succeeded', 200],
      [2, 'failed', 500],
      [1, 'failed', 500],
    ]);
  });

  it('gives up on a receiver that always fails after 1 + 3 attempts, all four in the log, spaced 1x, 2x, 4x the base', async () => {
    const down = await register(api, '/down');
    await api.call('POST', `/api/v1/webhooks/${down.id}/test`);
    await receiver.waitFor('/down', 4);
    const log = await settledDeliveryLog(api, down.id, 4);
    expect(log.map((entry) => [entry.attempt, entry.status, entry.error])).toEqual([4, 3, 2, 1].map((n) => [n, 'failed', 'HTTP 503']));

    // The waits are BullMQ's exponential backoff; on a busy machine they only get longer, so no upper bound.
    const gaps = downArrivals.slice(1).map((at, i) => at - downArrivals[i]!);
    expect(gaps).toHaveLength(3);
    [1, 2, 4].forEach((factor, i) => expect(gaps[i]).toBeGreaterThanOrEqual(0.9 * factor * RETRY_BASE_MS));
  });

  it('keeps delivering to others while one receiver hangs', async () => {
    const slowOrg = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    const slow = await register(slowOrg, '/slow');
    const fast = await register(api, '/fast');
    await slowOrg.call('POST', `/api/v1/webhooks/${slow.id}/test`);
    await receiver.waitFor('/slow', 1);
    await api.call('POST', `/api/v1/webhooks/${fast.id}/test`);
    await receiver.waitFor('/fast', 1);
    expect(receiver.openRequests()).toBeGreaterThanOrEqual(1); // the slow one is still hanging
  });

  it('DELETE /webhooks/{id} answers 204; a later event is not delivered to the endpoint', async () => {
    const org = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    const gone = await register(org, '/gone');
    const witness = await register(org, '/witness');
    const removed = await org.call('DELETE', `/api/v1/webhooks/${gone.id}`);
    expect(removed.status).toBe(204);
    expect(removed.raw.length).toBe(0);
    expect((await org.call('GET', '/api/v1/webhooks')).body.items.map((endpoint: { id: string }) => endpoint.id)).toEqual([witness.id]);
    expect((await org.call('POST', `/api/v1/webhooks/${gone.id}/test`)).status).toBe(404);
    expect((await org.call('DELETE', `/api/v1/webhooks/${gone.id}`)).status).toBe(404);

    const template = await org.uploadTemplate(buildDocx({ body: paragraph('Hello {name}') }), 'hello.docx');
    const document = await org.call('POST', '/api/v1/documents', { template_id: template.id, input_json: { name: 'Ada' }, output_format: 'docx' });
    const [hook] = await receiver.waitFor('/witness', 1);
    expect(verify(witness.secret, hook!)).toMatchObject({ event: 'document.ready', job_id: document.body.id });
    // The witness got it, so the event's fan-out is over: the deleted endpoint was not given a job.
    expect(await queue.wasGivenJob(document.body.id, 'document.ready', witness.id)).toBe(true);
    expect(await queue.wasGivenJob(document.body.id, 'document.ready', gone.id)).toBe(false);
    expect(receiver.received.filter((received) => received.path === '/gone')).toEqual([]);
  });

  it('DELETE drops a pending retry: the job ends after one attempt, without a second request', async () => {
    const org = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
    const endpoint = await register(org, '/gone-retry');
    const test = await org.call('POST', `/api/v1/webhooks/${endpoint.id}/test`);
    await receiver.waitFor('/gone-retry', 1);
    expect((await org.call('DELETE', `/api/v1/webhooks/${endpoint.id}`)).status).toBe(204);

    // The retry ran (a retry waiting is a job in Redis; one that completed is removed) and stood
    // down: no second request, no second attempt in the log.
    await eventually(async () => !(await queue.isPending(test.body.job_id as string, 'webhook.test', endpoint.id)), 'the delivery completed', 5_000);
    expect(receiver.received.filter((received) => received.path === '/gone-retry')).toHaveLength(1);
    const attempts = await stack.database.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
    expect(attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.responseStatus])).toEqual([[1, 'failed', 503]]);
  });

  it('delivers after the dispatcher is killed with SIGKILL while a retry is pending', async () => {
    await dispatcher.stop('SIGTERM');
    // The kill must land while the retry waits: with a 3 s base a loaded CI machine sometimes
    // got to it only after the second attempt had begun (its row then stays pending until
    // the job lock expires), so the wait is long enough to be certain.
    const slowRetries = await stack.start('webhook-dispatcher', { WEBHOOK_RETRY_BASE_MS: '8000' });
    const endpoint = await register(api, '/kill');
    const test = await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`);
    await receiver.waitFor('/kill', 1);
    let log = await settledDeliveryLog(api, endpoint.id, 1);
    expect(log[0]).toMatchObject({ attempt: 1, status: 'failed' });
    // The failed attempt is logged just before BullMQ records it: a kill in between leaves the
    // job active until its lock expires, and it then runs as attempt 1 again. Kill once it waits.
    await eventually(
      async () => (await (await queue.jobFor(test.body.job_id as string, 'webhook.test', endpoint.id))?.getState()) === 'delayed',
      'the retry is waiting',
      5_000,
    );
    await slowRetries.stop('SIGKILL');

    dispatcher = await stack.start('webhook-dispatcher', { WEBHOOK_RETRY_BASE_MS: '8000' });
    const [, second] = await receiver.waitFor('/kill', 2);
    expect(verify(endpoint.secret, second!)).toMatchObject({ event: 'webhook.test' });
    log = await settledDeliveryLog(api, endpoint.id, 2);
    expect(log.map((entry) => [entry.attempt, entry.status])).toEqual([
      [2, 'succeeded'],
      [1, 'failed'],
    ]);
  }, 60_000);

  it('a dispatcher killed with SIGKILL during a first attempt: another sends it again, as attempt 1 with the same webhook-id, once the first is silent for WEBHOOK_LOCK_MS', async () => {
    const endpoint = await register(api, '/taken-over');
    const killed = await stack.start('webhook-dispatcher');
    await dispatcher.stop('SIGTERM'); // the first attempt can only go to the dispatcher about to be killed
    const test = await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`);
    const [first] = await receiver.waitFor('/taken-over', 1); // it hangs there
    await killed.stop('SIGKILL');
    expect(await queue.isPending(test.body.job_id as string, 'webhook.test', endpoint.id)).toBe(true);

    dispatcher = await stack.start('webhook-dispatcher');
    const [, second] = await receiver.waitFor('/taken-over', 2, 15_000);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(verify(endpoint.secret, second!)).toMatchObject({ event: 'webhook.test', job_id: test.body.job_id });
    const log = await settledDeliveryLog(api, endpoint.id, 1);
    expect(log.map((entry) => [entry.attempt, entry.status])).toEqual([[1, 'succeeded']]);
    await eventually(async () => !(await queue.isPending(test.body.job_id as string, 'webhook.test', endpoint.id)), 'the delivery completed', 5_000);
    expect(receiver.received.filter((hook) => hook.path === '/taken-over')).toHaveLength(2);
  }, 60_000);

  it('with two dispatchers, delivers each event once', async () => {
    const other = await stack.start('webhook-dispatcher');
    const endpoint = await register(api, '/pair');
    for (let i = 0; i < 12; i++) await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`);
    await receiver.waitFor('/pair', 12);
    const log = await settledDeliveryLog(api, endpoint.id, 12);
    expect(log.filter((entry) => entry.status === 'succeeded')).toHaveLength(12);
    const received = receiver.received.filter((hook) => hook.path === '/pair');
    expect(received).toHaveLength(12);
    expect(new Set(received.map((hook) => hook.headers['webhook-id'])).size).toBe(12);
    await other.stop();
  });
});
