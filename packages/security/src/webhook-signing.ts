import { createHash, createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A Standard Webhooks secret: "whsec_" + base64 of 32 random bytes. */
export const generateWebhookSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('base64');

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed by the secret's decoded bytes. */
export function signWebhook(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}

/** The webhook-id of one event to one endpoint: the same on every retry, different for every event. */
export const webhookMessageId = (eventId: string, endpointId: string): string =>
  `msg_${createHash('sha256').update(`${eventId}:${endpointId}`).digest('base64url').slice(0, 32)}`;
