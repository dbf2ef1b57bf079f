import type { Readable } from 'node:stream';

export class FileNotFoundError extends Error {
  override name = 'FileNotFoundError';
  constructor(readonly key: string) {
    super(`No stored file at ${key}`);
  }
}

/** What a presigned download answers with: the same headers the gateway would send. */
export interface DownloadUrlOptions {
  contentType: string;
  contentDisposition: string;
  ttlSeconds: number;
}

/**
 * Where template and generated files live. Keys are relative paths such as
 * "templates/<org>/<id>.docx". The local driver writes under STORAGE_DIR (a shared volume
 * when scaled out); the s3 driver to any S3-compatible bucket.
 */
export interface FileStorage {
  /** Stores the bytes; readers never see a half-written file. */
  put(key: string, data: Buffer): Promise<void>;
  /** Stores a stream without holding it in memory; resolves with the bytes written. Atomic like put. */
  putStream(key: string, data: Readable): Promise<number>;
  get(key: string): Promise<Buffer>;
  /** A stream of the file, for downloads. Throws FileNotFoundError before streaming starts. */
  open(key: string): Promise<{ stream: Readable; size: number }>;
  /** Idempotent: deleting a missing file is not an error. */
  delete(key: string): Promise<void>;
  /** Every stored key that starts with `prefix` (a folder such as "documents/<org>/<id>/"). */
  list(prefix: string): Promise<string[]>;
  /** A URL the client can fetch the file from directly, when the driver can sign one (s3). */
  downloadUrl?(key: string, options: DownloadUrlOptions): Promise<string>;
}
