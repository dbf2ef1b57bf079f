import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './generated/openapi.js';
import { WebhookVerificationError } from './errors.js';

type Document = components['schemas']['Document'];
type BulkJob = components['schemas']['BulkJob'];

/** The body of a docgen webhook delivery (API.md §4). */
export type WebhookEvent =
  | { event: 'document.ready' | 'document.failed'; job_id: string; occurred_at: string; data: Document }
  | { event: 'bulk.completed'; job_id: string; occurred_at: string; data: BulkJob }
  | { event: 'webhook.test'; job_id: string; occurred_at: string; data: { endpoint_id: string; message: string } };

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far the webhook-timestamp may be from now, either way (default 300 s, as the Standard Webhooks libraries). */
  toleranceSeconds?: number;
  /** "Now", for tests and replays of stored deliveries. */
  now?: Date;
}

const SECRET_PREFIX = 'whsec_';

function header(headers: WebhookHeaders, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) throw new WebhookVerificationError(`Missing ${name} header`);
  return text;
}

const secretKey = (secret: string) => Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');

/**
 * Checks a delivery the Standard Webhooks way and returns its parsed body: the timestamp is
 * within the tolerance, and one `v1,` signature in `webhook-signature` is the HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<raw body>" under one of the secrets. Pass several
 * secrets while rotating (the old endpoint's and the new one's). Throws
 * WebhookVerificationError otherwise. `rawBody` must be the bytes as received, not re-serialised JSON.
 */
export function verifyWebhook(secret: string | string[], headers: WebhookHeaders, rawBody: string | Uint8Array, options: VerifyOptions = {}): WebhookEvent {
  const secrets = (Array.isArray(secret) ? secret : [secret]).filter(Boolean);
  if (secrets.length === 0) throw new WebhookVerificationError('No webhook secret given');
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');

  const timestamp = Number(timestampText);
  if (!/^\d+$/.test(timestampText)) throw new WebhookVerificationError('Invalid webhook-timestamp header');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (now - timestamp > tolerance) throw new WebhookVerificationError('Webhook timestamp is too old');
  if (timestamp - now > tolerance) throw new WebhookVerificationError('Webhook timestamp is too far in the future');

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody) : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]);
  const expected = secrets.map((s) => createHmac('sha256', secretKey(s)).update(signed).digest());
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return expected.some((digest) => digest.length === given.length && timingSafeEqual(digest, given));
  });
  if (!matches) throw new WebhookVerificationError('No webhook signature matches the secret');

  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('Webhook body is not JSON');
  }
}
