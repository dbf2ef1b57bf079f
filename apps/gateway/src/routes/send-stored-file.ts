import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { FileStorage } from '@docgen/storage';

export interface StoredFile {
  key: string;
  contentType: string;
  contentDisposition: string;
}

/**
 * Sends a stored file as a download: streamed through the gateway, or, with
 * DOWNLOAD_REDIRECT=true and a driver that can sign URLs (s3), a 302 to a presigned URL
 * valid `redirectTtlSeconds` that answers with the same Content-Type and Content-Disposition.
 */
export function storedFileSender(storage: FileStorage, redirectTtlSeconds?: number) {
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
    await pipeline(stream, res);
  };
}

export type SendStoredFile = ReturnType<typeof storedFileSender>;
