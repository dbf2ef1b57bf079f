import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestCertificates } from '@docgen/testing';

/** One webhook delivery as it arrived. */
export interface Notice {
  /** The document's id (the event's job_id). */
  id: string;
  event: string;
  /** The document's completed_at when it is ready; undefined when it failed. */
  completedAt: string | undefined;
  /** The webhook-id header: the same for every delivery of one event. */
  webhookId: string;
}

/**
 * An HTTPS webhook receiver that tells each waiting client when its document is done.
 * A notice that arrives before the client knows its document id is kept until asked for.
 * `onNotice` sees every delivery, a second one for the same document included.
 */
export async function startReadyNotices(certificates: TestCertificates, onNotice?: (notice: Notice) => void) {
  const waiting = new Map<string, (completedAt: string | undefined) => void>();
  const early = new Map<string, string | undefined>();
  const server = createServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.end();
      const payload = JSON.parse(Buffer.concat(chunks).toString()) as { event: string; job_id: string; data: { status: string; completed_at: string } };
      const id = payload.job_id;
      const completedAt = payload.data.status === 'ready' ? payload.data.completed_at : undefined;
      onNotice?.({ id, event: payload.event, completedAt, webhookId: String(req.headers['webhook-id'] ?? '') });
      const resolve = waiting.get(id);
      if (resolve) resolve(completedAt);
      else early.set(id, completedAt);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Resolves with the document's completed_at, or undefined when it failed. */
    waitFor: (id: string) =>
      new Promise<string | undefined>((resolve) => {
        if (early.has(id)) {
          resolve(early.get(id));
          early.delete(id);
          return;
        }
        waiting.set(id, (completedAt) => {
          waiting.delete(id);
          resolve(completedAt);
        });
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
