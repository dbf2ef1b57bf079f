import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';

/**
 * A document's PDF passwords, kept in Redis beside its render queue only until the render
 * is over: PostgreSQL stores "***" in their place, and a render job's data is only
 * {documentId, generation}. The key is the document's (not the generation's) so that a
 * BullMQ retry or the stuck-document sweep's new generation still finds them; the render
 * worker deletes it when the document is ready or has failed for good, and the TTL bounds
 * how long a document that never renders keeps them.
 */
export const RenderSecrets = z.object({ password: z.string().optional(), owner_password: z.string().optional() });
export type RenderSecrets = z.output<typeof RenderSecrets>;

/** How long passwords wait for their render; a document queued longer fails and says to retry with them. */
export const RENDER_SECRETS_TTL_SECONDS = 24 * 60 * 60;

type QueueLike = Pick<Queue, 'toKey' | 'getBackend'>;

const secretsKey = (queue: QueueLike, documentId: string) => queue.toKey(`secrets:${documentId}`);

export async function storeRenderSecrets(queue: QueueLike, documentId: string, secrets: RenderSecrets): Promise<void> {
  const client = (await queue.getBackend().client) as unknown as Redis;
  await client.set(secretsKey(queue, documentId), JSON.stringify(secrets), 'EX', RENDER_SECRETS_TTL_SECONDS);
}

/** The same passwords for many documents (a bulk job's rows), one key each, in one round trip per chunk. */
export async function storeRenderSecretsMany(queue: QueueLike, documentIds: string[], secrets: RenderSecrets): Promise<void> {
  const client = (await queue.getBackend().client) as unknown as Redis;
  const value = JSON.stringify(secrets);
  for (let start = 0; start < documentIds.length; start += SECRETS_CHUNK) {
    const pipeline = client.pipeline();
    for (const id of documentIds.slice(start, start + SECRETS_CHUNK)) pipeline.set(secretsKey(queue, id), value, 'EX', RENDER_SECRETS_TTL_SECONDS);
    const results = await pipeline.exec();
    const failed = results?.find(([error]) => error);
    if (failed) throw failed[0];
  }
}

const SECRETS_CHUNK = 1_000;

/** The passwords stored for the document, or undefined when they are gone (expired or deleted). */
export async function readRenderSecrets(queue: QueueLike, documentId: string): Promise<RenderSecrets | undefined> {
  const client = await queue.getBackend().client;
  const stored = await client.get(secretsKey(queue, documentId));
  return stored === null ? undefined : RenderSecrets.parse(JSON.parse(stored));
}

export async function deleteRenderSecrets(queue: QueueLike, documentId: string): Promise<void> {
  const client = await queue.getBackend().client;
  await client.del(secretsKey(queue, documentId));
}
