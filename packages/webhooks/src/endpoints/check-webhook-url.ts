import { OutboundBlockedError, assertPublicHost } from '@docgen/security';
import { WebhookError } from '../errors';

const refuse = (detail: string) => new WebhookError('validation_failed', detail, [{ path: 'url', message: detail }]);

/**
 * Registration-time checks; the dispatcher repeats the address check on every delivery
 * (and connects to the address it checked), so a DNS change later cannot slip through.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<string> {
  const url = new URL(raw);
  if (url.protocol !== 'https:') throw refuse('Webhook URL must use HTTPS');
  if (url.username || url.password) throw refuse('Webhook URL must not contain credentials');
  try {
    await assertPublicHost(url.hostname, allowPrivate);
  } catch (error) {
    if (error instanceof OutboundBlockedError) {
      throw refuse(`Webhook URL must be publicly reachable; ${url.hostname} resolves to a ${error.range} address`);
    }
    throw refuse(`Webhook URL host ${url.hostname} could not be resolved`);
  }
  return url.toString();
}
