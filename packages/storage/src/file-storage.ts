import type { Readable } from 'node:stream';

export class FileNotFoundError extends Error {
  override name = 'FileNotFoundError';
  constructor(readonly key: string) {
    super(`No stored file at ${key}`);
  }
}

/**
 * Where template and generated files live. Keys are relative paths such as
 * "templates/<org>/<id>.docx". The local driver writes under STORAGE_DIR (a shared volume
 * when scaled out); an S3-compatible driver can implement the same interface.
 */
export interface FileStorage {
  /** Stores the bytes; readers never see a half-written file. */
  put(key: string, data: Buffer): Promise<void>;
  /** Stores a stream without holding it in memory; resolves with the bytes written. */
  putStream(key: string, data: Readable): Promise<number>;
  get(key: string): Promise<Buffer>;
  /** A stream of the file, for downloads. Throws FileNotFoundError before streaming starts. */
  open(key: string): Promise<{ stream: Readable; size: number }>;
  delete(key: string): Promise<void>;
}
