import {
  apiClient,
  makeTestCertificates,
  startHttpsReceiver,
  startStack,
  type ApiClient,
  type HttpsReceiver,
  type RunningService,
  type Stack,
} from '@docgen/testing';
import { deliveryLog, deliveryQueue, eventually } from './helpers';

const TIMEOUT_MS = 6_000;

describe('per-endpoint and per-organisation caps (dispatcher process: WEBHOOK_CONCURRENCY=4, WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT=2, WEBHOOK_MAX_IN_FLIGHT_PER_ORG=3)', () => {
  let stack: Stack;
  let receiver: HttpsReceiver;
  let dispatcher: RunningService;
  let queue: ReturnType<typeof deliveryQueue>;

  beforeAll(async () => {
    const certificates = makeTestCertificates();
    receiver = await startHttpsReceiver(certificates, (path) => (path.startsWith('/dead') ? 'hang' : 200));
    stack = await startStack({
      workers: 0,
      env: {
        OUTBOUND_ALLOW_PRIVATE: 'true',
        NODE_EXTRA_CA_CERTS: certificates.caPath,
        WEBHOOK_CONCURRENCY: '4',
        WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '2',
        WEBHOOK_MAX_IN_FLIGHT_PER_ORG: '3',
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        // No retry of the timed-out attempts while the test runs.
        WEBHOOK_RETRY_BASE_MS: '600000',
      },
    });
    dispatcher = await stack.start('webhook-dispatcher');
    queue = deliveryQueue(stack);
  }, 120_000);
  afterAll(async () => {
    await queue.close();
    await stack.close();
    await receiver.close();
  });

  const client = async () => apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  const register = async (org: ApiClient, path: string) => {
    const res = await org.call('POST', '/api/v1/webhooks', { url: `${receiver.url}${path}` });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  const sendTest = async (org: ApiClient, endpointId: string) => {
    const res = await org.call('POST', `/api/v1/webhooks/${endpointId}/test`);
    expect(res.status).toBe(202);
    return res.body.job_id as string;
  };

  it("a dead endpoint holds at most 2 of the 4 slots; another organisation's delivery goes through at once; deferral uses no attempt", async () => {
    const deadOrg = await client();
    const liveOrg = await client();
    const dead = await register(deadOrg, '/dead');
    const live = await register(liveOrg, '/live');

    // Four events for an endpoint that never answers: without the cap they would take all 4 slots for TIMEOUT_MS.
    const deadEvents: string[] = [];
    for (let i = 0; i < 4; i++) deadEvents.push(await sendTest(deadOrg, dead.id));
    await receiver.waitFor('/dead', 2);

    // The two that found no slot became jobs (the two in flight are first attempts, which have none),
    // have been picked up and put back again, more than once, and still have all 4 attempts.
    const deferred = await eventually(async () => {
      const jobs = (await Promise.all(deadEvents.map((subject) => queue.jobFor(subject, 'webhook.test', dead.id)))).filter((job) => job);
      return jobs.length === 2 && jobs.every((job) => job!.attemptsStarted >= 2) && jobs;
    }, 'two deliveries of the dead endpoint deferred, as jobs, twice more');
    // A deferred first attempt keeps all four attempts: not a retry job, which would carry the one it made.
    for (const job of deferred) expect([job!.data.attemptsBefore ?? 0, job!.opts.attempts]).toEqual([0, 4]);
    for (const job of deferred) {
      expect(job!.attemptsMade).toBe(0);
      // Still going round: put back (delayed), due (waiting), or at this instant picked up again to find the endpoint still full (active).
      expect(['delayed', 'waiting', 'active']).toContain(await job!.getState());
    }
    expect(receiver.received.filter((hook) => hook.path === '/dead')).toHaveLength(2);
    expect(receiver.openRequests()).toBe(2);

    // The other organisation's endpoint: delivered long before the dead endpoint's attempts time out.
    const started = Date.now();
    await sendTest(liveOrg, live.id);
    await receiver.waitFor('/live', 1, 2_000);
    const liveMs = Date.now() - started;
    expect(liveMs).toBeLessThan(2_000);
    expect(receiver.openRequests()).toBe(2); // the dead endpoint's two attempts are still hanging
    const metrics = await (await fetch(`${dispatcher.url}/metrics`)).text();
    expect(Number(/^docgen_webhook_deferrals_total\S* (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(4);

    // Once the two hanging attempts time out, the deferred events get their first attempt: attempt 1, not 2 or more.
    await receiver.waitFor('/dead', 4, TIMEOUT_MS + 10_000);
    const log = await eventually(async () => {
      const entries = await deliveryLog(deadOrg, dead.id);
      return entries.length === 4 && entries;
    }, 'four attempts in the log of the dead endpoint');
    expect(log.map((entry) => entry.attempt)).toEqual([1, 1, 1, 1]);
    expect(new Set(log.map((entry) => entry.job_id))).toEqual(new Set(deadEvents));
    expect(log.filter((entry) => entry.status === 'failed').map((entry) => entry.error)).toEqual([
      `no answer within ${TIMEOUT_MS / 1000} s`,
      `no answer within ${TIMEOUT_MS / 1000} s`,
    ]);
    // The last two end with their timeout too, so that the next test starts with every slot free.
    await eventually(
      async () => (await deliveryLog(deadOrg, dead.id)).every((entry) => entry.status === 'failed'),
      'every attempt of the dead endpoint over',
      TIMEOUT_MS + 10_000,
    );
  }, 60_000);

  it("an organisation with several dead endpoints holds at most 3 of the 4 slots; another organisation's delivery goes through at once", async () => {
    const deadOrg = await client();
    const liveOrg = await client();
    const deadEndpoints = [await register(deadOrg, '/dead-a'), await register(deadOrg, '/dead-b')];
    const live = await register(liveOrg, '/live-b');

    // Two events to each dead endpoint: each endpoint's cap (2) alone would let them take all 4 slots.
    const sent: { subject: string; endpointId: string }[] = [];
    for (const endpoint of deadEndpoints) for (let i = 0; i < 2; i++) sent.push({ subject: await sendTest(deadOrg, endpoint.id), endpointId: endpoint.id });
    const deadArrivals = () => receiver.received.filter((hook) => hook.path === '/dead-a' || hook.path === '/dead-b').length;
    await eventually(() => deadArrivals() === 3, 'three attempts to the dead organisation under way');
    const deferred = await eventually(async () => {
      const jobs = (await Promise.all(sent.map(({ subject, endpointId }) => queue.jobFor(subject, 'webhook.test', endpointId)))).filter((job) => job);
      return jobs.length === 1 && jobs[0]!.attemptsStarted >= 2 && jobs;
    }, "the dead organisation's fourth delivery deferred, as a job, twice more");
    expect(deferred[0]!.attemptsMade).toBe(0);

    const started = Date.now();
    await sendTest(liveOrg, live.id);
    await receiver.waitFor('/live-b', 1, 2_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(deadArrivals()).toBe(3); // the fourth still waits for a slot of its organisation
  }, 60_000);
});
