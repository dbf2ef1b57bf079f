import { signWebhook } from '@docgen/security';
import {
  apiClient,
  makeTestCertificates,
  startHttpsReceiver,
  startStack,
  type ApiClient,
  type HttpsReceiver,
  type ReceivedWebhook,
  type Stack,
} from '@docgen/testing';
import { createClient, verifyWebhook, WebhookEvents, WebhookVerificationError, type DocgenClient } from '@docgen/client';
import { uploadInvoiceTemplate } from './support';

describe('verifyWebhook on deliveries from the real dispatcher (HTTPS receiver on loopback)', () => {
  let stack: Stack;
  let receiver: HttpsReceiver;
  let api: ApiClient;
  let client: DocgenClient;
  let templateId: string;
  let oldSecret: string;
  let newSecret: string;
  let oldDelivery: ReceivedWebhook;
  let newDelivery: ReceivedWebhook;

  const register = async (path: string) => {
    const res = await api.call('POST', '/api/v1/webhooks', { url: `${receiver.url}${path}`, events: ['document.ready', 'document.failed'] });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };
  const timestampOf = (hook: ReceivedWebhook) => Number(hook.headers['webhook-timestamp']);

  beforeAll(async () => {
    const certificates = makeTestCertificates();
    receiver = await startHttpsReceiver(certificates, () => 204);
    stack = await startStack({ env: { OUTBOUND_ALLOW_PRIVATE: 'true', NODE_EXTRA_CA_CERTS: certificates.caPath } });
    await stack.start('webhook-dispatcher');
    const org = await stack.organization();
    api = apiClient(stack.gateways[0]!.url, org.apiKey);
    client = createClient({ baseUrl: stack.gateways[0]!.url, apiKey: org.apiKey });
    templateId = await uploadInvoiceTemplate(api);
    // Rotation: the receiver's old endpoint and its replacement both get the event.
    oldSecret = (await register('/old')).secret;
    newSecret = (await register('/new')).secret;
    const { document } = await client.generateAndWait({ template_id: templateId, input_json: { client_name: 'Hooked' }, output_format: 'pdf' });
    oldDelivery = (await receiver.waitFor('/old', 1))[0]!;
    newDelivery = (await receiver.waitFor('/new', 1))[0]!;
    expect(JSON.parse(oldDelivery.body)).toMatchObject({ job_id: document.id, event: 'document.ready' });
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });

  it('accepts a real delivery and returns its event', () => {
    const event = verifyWebhook(newSecret, newDelivery.headers, newDelivery.body);
    expect(event).toMatchObject({ event: 'document.ready', data: { status: 'ready', template_id: templateId } });
    expect(event.job_id).toBe((event.data as { id: string }).id);
    // The same check with Fetch API headers and the raw bytes.
    expect(verifyWebhook(newSecret, new Headers(newDelivery.headers as Record<string, string>), Buffer.from(newDelivery.body))).toEqual(event);
    const capitalised = Object.fromEntries(Object.entries(newDelivery.headers).map(([k, v]) => [k.replace(/(^|-)w/g, (m) => m.toUpperCase()), v]));
    expect(verifyWebhook(newSecret, capitalised, newDelivery.body)).toEqual(event);
  });

  it('refuses a tampered body, a wrong secret, and missing headers', () => {
    const tampered = newDelivery.body.replace('"ready"', '"failed"');
    expect(tampered).not.toBe(newDelivery.body);
    expect(() => verifyWebhook(newSecret, newDelivery.headers, tampered)).toThrow(new WebhookVerificationError('No webhook signature matches the secret'));
    expect(() => verifyWebhook(oldSecret, newDelivery.headers, newDelivery.body)).toThrow(WebhookVerificationError);
    const { ['webhook-signature']: _dropped, ...unsigned } = newDelivery.headers;
    expect(() => verifyWebhook(newSecret, unsigned, newDelivery.body)).toThrow('Missing webhook-signature header');
  });

  it('refuses an old timestamp (and one from the future) outside the tolerance', () => {
    const sent = timestampOf(newDelivery);
    const at = (seconds: number) => ({ now: new Date(seconds * 1000) });
    expect(() => verifyWebhook(newSecret, newDelivery.headers, newDelivery.body, at(sent + 301))).toThrow('Webhook timestamp is too old');
    expect(() => verifyWebhook(newSecret, newDelivery.headers, newDelivery.body, at(sent - 301))).toThrow('too far in the future');
    expect(verifyWebhook(newSecret, newDelivery.headers, newDelivery.body, at(sent + 299)).event).toBe('document.ready');
    // An attacker replaying an old delivery under a fresh timestamp breaks the signature instead.
    const fresh = { ...newDelivery.headers, 'webhook-timestamp': String(sent + 600) };
    expect(() => verifyWebhook(newSecret, fresh, newDelivery.body, at(sent + 600))).toThrow('No webhook signature matches');
  });

  it('during a secret rotation accepts deliveries signed with either secret, and several signatures in one header', () => {
    expect(verifyWebhook([oldSecret, newSecret], oldDelivery.headers, oldDelivery.body).event).toBe('document.ready');
    expect(verifyWebhook([oldSecret, newSecret], newDelivery.headers, newDelivery.body).event).toBe('document.ready');
    expect(() => verifyWebhook([newSecret], oldDelivery.headers, oldDelivery.body)).toThrow(WebhookVerificationError);
    // A sender signing with both secrets during its own rotation: "v1,<old> v1,<new>".
    const { 'webhook-id': id, 'webhook-timestamp': ts } = newDelivery.headers as Record<string, string>;
    const both = `${signWebhook(oldSecret, id!, Number(ts), newDelivery.body)} ${newDelivery.headers['webhook-signature']}`;
    expect(verifyWebhook(newSecret, { ...newDelivery.headers, 'webhook-signature': both }, newDelivery.body).event).toBe('document.ready');
  });

  it('generateAndWait finishes on the webhook, long before its next poll', async () => {
    const events = new WebhookEvents();
    const seen = receiver.received.filter((hook) => hook.path === '/new').length;
    void receiver.waitFor('/new', seen + 1, 60_000).then((hooks) => events.push(verifyWebhook(newSecret, hooks.at(-1)!.headers, hooks.at(-1)!.body)));
    const started = Date.now();
    const { document } = await client.generateAndWait(
      { template_id: templateId, input_json: { client_name: 'Early' }, output_format: 'pdf' },
      { events, pollIntervalMs: 120_000, timeoutMs: 60_000 },
    );
    expect(document.status).toBe('ready');
    expect(Date.now() - started).toBeLessThan(60_000);
  });
});
