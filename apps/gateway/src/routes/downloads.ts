import type { Response } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileStorage } from '@docgen/storage';
import { TurnsByKey } from '@docgen/runtime';

/** How a response fails when its client has closed the connection. */
const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);
const CLIENT_LEFT = 'download ended early: its client closed the connection';

export interface StoredFile {
  key: string;
  contentType: string;
  contentDisposition: string;
  /** Whose file it is: an organisation streams at most `perOrganization` at once from a replica. */
  organizationId: string;
}

export interface DownloadsOptions {
  /** DOWNLOAD_REDIRECT with a driver that signs URLs: how long the URL is valid. */
  redirectTtlSeconds?: number;
  /** DOWNLOAD_IDLE_TIMEOUT_MS: a download that moves nothing for this long is cut. */
  idleTimeoutMs: number;
  /** DOWNLOADS_PER_ORG: streamed downloads of one organisation at once on this replica; the rest wait their turn. */
  perOrganization: number;
}

/**
 * Stored files sent as downloads: streamed through the gateway, or, with DOWNLOAD_REDIRECT=true
 * and a driver that can sign URLs (s3), a 302 to a presigned URL valid `redirectTtlSeconds`
 * that answers with the same Content-Type and Content-Disposition.
 *
 * A streamed download holds its storage stream (with s3, one of the client's pooled sockets)
 * for as long as its client takes to read it, so a client that stops reading could hold one
 * for ever and a few dozen could hold them all. Two bounds: a download that moves nothing for
 * `idleTimeoutMs` is cut (its own timer, refreshed by each chunk the storage hands on, never
 * the socket's timeout, which would carry over to a request pipelined behind it), and one
 * organisation streams at most `perOrganization` at once from this replica, the rest waiting
 * their turn before anything is opened: a client that reads slowly on purpose holds only its
 * own organisation's turns.
 */
export class Downloads {
  private readonly turns: TurnsByKey;

  constructor(
    private readonly storage: FileStorage,
    private readonly options: DownloadsOptions,
  ) {
    this.turns = new TurnsByKey(options.perOrganization);
  }

  async file(res: Response, file: StoredFile): Promise<void> {
    const { redirectTtlSeconds } = this.options;
    if (redirectTtlSeconds && this.storage.downloadUrl) {
      const url = await this.storage.downloadUrl(file.key, {
        contentType: file.contentType,
        contentDisposition: file.contentDisposition,
        ttlSeconds: redirectTtlSeconds,
      });
      res.setHeader('Cache-Control', 'no-store'); // the URL expires; nobody should keep it
      res.redirect(302, url);
      return;
    }
    await this.inTurn(res, file.organizationId, async () => {
      const { stream, size } = await this.storage.open(file.key);
      res.setHeader('Content-Type', file.contentType);
      res.setHeader('Content-Length', String(size));
      res.setHeader('Content-Disposition', file.contentDisposition);
      await this.body(res, stream);
    });
  }

  /** `send` (which opens a stored file and streams it with `body`) holding one of the organisation's turns; nothing if the client left meanwhile. */
  async inTurn(res: Response, organizationId: string, send: () => Promise<void>): Promise<void> {
    const release = await this.turns.acquire(organizationId);
    try {
      if (!res.destroyed) await send();
    } finally {
      release();
    }
  }

  /** `stream` as the response's body (its headers set), cut when nothing moves for `idleTimeoutMs`. */
  async body(res: Response, stream: Readable): Promise<void> {
    if (res.destroyed) {
      // Its client left while the file was being opened.
      stream.destroy();
      res.req.log.info(CLIENT_LEFT);
      return;
    }
    let cut!: () => void;
    const stalled = new Promise<'stalled'>((resolve) => (cut = () => resolve('stalled')));
    const idle = setTimeout(() => {
      // A response queued behind a pipelined one has no socket yet: destroying it settles no
      // pipeline, so the cut itself ends the wait, and both streams are destroyed here.
      cut();
      res.destroy();
      stream.destroy();
    }, this.options.idleTimeoutMs);
    // Before pipeline()'s own listener, which destroys the stored stream: still open then means the client closed first.
    let clientLeft = false;
    res.once('close', () => (clientLeft = !stream.destroyed));
    const sending = pipeline(stream, res);
    stream.on('data', () => idle.refresh()); // after pipeline() has attached its own reader
    try {
      // The cut settles `stalled` before the destroyed streams fail the pipeline, so a failure here is a real one...
      const outcome = await Promise.race([sending, stalled]).catch((error: unknown) => {
        // ...but for a client that closed its connection: after the whole body was handed on (its close raced the
        // response's last write), or before (it left mid-download). Neither is a failure of ours to log as one.
        if (!CLIENT_GONE.has((error as NodeJS.ErrnoException).code ?? '') || !(res.writableEnded || clientLeft)) throw error;
        return res.writableEnded ? 'sent' : 'left';
      });
      if (outcome === 'stalled') {
        sending.catch(() => undefined);
        res.req.log.info({ idle_ms: this.options.idleTimeoutMs }, 'download cut: its client read nothing for too long');
      } else if (outcome === 'left') res.req.log.info(CLIENT_LEFT);
    } finally {
      clearTimeout(idle);
    }
  }
}
