import { generateWebhookSecret } from '@docgen/security';
import { apiClient, makeTestCertificates, startHttpsReceiver, startStack, type HttpsReceiver, type RunningService, type Stack } from '@docgen/testing';
import { settledDeliveryLog } from './helpers';

/**
 * An endpoint whose host answered with a public address at registration and resolves to
 * loopback at delivery time (DNS rebinding) looks, to the dispatcher, exactly like a row
 * pointing at loopback: so the row is written straight into the database, past the
 * registration check, and a dispatcher with the guard on must refuse every attempt.
 */
describe('delivery-time address check (dispatcher with OUTBOUND_ALLOW_PRIVATE=false)', () => {
  let stack: Stack;
  let receiver: HttpsReceiver;
  let dispatcher: RunningService;

  beforeAll(async () => {
    const certificates = makeTestCertificates();
    receiver = await startHttpsReceiver(certificates, () => 200);
    stack = await startStack({ workers: 0, env: { NODE_EXTRA_CA_CERTS: certificates.caPath, WEBHOOK_RETRY_BASE_MS: '20' } });
    dispatcher = await stack.start('webhook-dispatcher', { OUTBOUND_ALLOW_PRIVATE: 'false' });
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });

  it.each([
    ['localhost', 'a name that resolves to loopback', /^refused: localhost resolves to (127\.0\.0\.1|::1) \(loopback\), a private or reserved address$/],
    ['127.0.0.1', 'a loopback IP literal', /^refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1 \(loopback\), a private or reserved address$/],
  ])('refuses all 4 attempts to https://%s:<receiver port> (%s); the receiver gets nothing', async (host, _what, refusal) => {
    const org = await stack.organization();
    const api = apiClient(stack.gateways[0]!.url, org.apiKey);
    const path = `/rebound-${host}`;
    const endpoint = await stack.database.db.webhookEndpoint.create({
      data: {
        organizationId: org.organizationId,
        url: `https://${host}:${new URL(receiver.url).port}${path}`,
        events: ['document.ready', 'document.failed', 'bulk.completed'],
        secret: generateWebhookSecret(),
      },
    });
    expect((await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`)).status).toBe(202);

    const log = await settledDeliveryLog(api, endpoint.id, 4);
    expect(log.map((entry) => [entry.attempt, entry.status, entry.response_status])).toEqual([4, 3, 2, 1].map((n) => [n, 'failed', null]));
    for (const entry of log) expect(entry.error).toMatch(refusal);
    expect(receiver.received.filter((hook) => hook.path === path)).toEqual([]);
    expect(dispatcher.logs.some((line) => line.msg === 'webhook attempt' && String(line.error).startsWith('refused:'))).toBe(true);
  });
});
