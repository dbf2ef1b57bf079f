import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { FileStorage } from '@docgen/storage';

export interface StoredFile {
  key: string;
  contentType: string;
  contentDisposition: string;
}

export interface SendOptions {
  /** DOWNLOAD_REDIRECT with a driver that signs URLs: how long the URL is valid. */
  redirectTtlSeconds?: number;
  /** DOWNLOAD_IDLE_TIMEOUT_MS: a download whose client takes nothing for this long is cut. */
  idleTimeoutMs: number;
}

/**
 * Sends a stored file as a download: streamed through the gateway, or, with
 * DOWNLOAD_REDIRECT=true and a driver that can sign URLs (s3), a 302 to a presigned URL
 * valid `redirectTtlSeconds` that answers with the same Content-Type and Content-Disposition.
 * A streamed download whose client stops reading is cut after `idleTimeoutMs`: it would hold
 * its storage stream (with s3, one of the client's pooled sockets) for as long as it liked.
 */
export function storedFileSender(storage: FileStorage, { redirectTtlSeconds, idleTimeoutMs }: SendOptions) {
  return async (res: Response, file: StoredFile): Promise<void> => {
    if (redirectTtlSeconds && storage.downloadUrl) {
      const url = await storage.downloadUrl(file.key, {
        contentType: file.contentType,
        contentDisposition: file.contentDisposition,
        ttlSeconds: redirectTtlSeconds,
      });
      res.setHeader('Cache-Control', 'no-store'); // the URL expires; nobody should keep it
      res.redirect(302, url);
      return;
    }
    const { stream, size } = await storage.open(file.key);
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Content-Length', String(size));
    res.setHeader('Content-Disposition', file.contentDisposition);
    let stalled = false;
    res.setTimeout(idleTimeoutMs, () => {
      stalled = true;
      res.destroy(); // the pipeline then destroys the storage stream
    });
    try {
      await pipeline(stream, res);
    } catch (error) {
      if (!stalled) throw error;
      res.req.log.info({ key: file.key, idle_ms: idleTimeoutMs }, 'download cut: its client read nothing for too long');
    }
  };
}

export type SendStoredFile = ReturnType<typeof storedFileSender>;
