import { Transform, type Readable } from 'node:stream';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { awsSdk } from './aws-sdk';
import { FileNotFoundError, type DownloadUrlOptions, type FileStorage } from './file-storage';
import { assertSafeKey } from './keys';

const MiB = 1024 * 1024;
/** Multipart parts in flight per upload: memory stays near PART_SIZE x QUEUE_SIZE whatever the file size. */
const PART_SIZE = 8 * MiB;
const QUEUE_SIZE = 2;
const SOCKET_IDLE_TIMEOUT_MS = 120_000;
const MAX_SOCKETS = 256;

export interface S3StorageOptions {
  bucket: string;
  /** Empty for AWS; the store's URL for MinIO, Ceph, R2, GCS interoperability... */
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
  /** Put before every key, e.g. "docgen/" to share a bucket. */
  prefix?: string;
  /** Extra client settings (tests pass credentials and a request handler). */
  client?: Partial<S3ClientConfig>;
}

/**
 * Files as objects in an S3-compatible bucket. A PUT, or a multipart upload once completed,
 * becomes visible all at once, so a reader never sees half an object; a writer killed
 * mid-upload leaves only unfinished parts, which no GET returns (a bucket lifecycle rule
 * aborting incomplete multipart uploads reclaims them). Credentials come the SDK's usual
 * way (environment, web identity, instance role).
 */
export class S3FileStorage implements FileStorage {
  readonly client: S3Client;
  private readonly sdk = awsSdk();
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3StorageOptions) {
    this.bucket = options.bucket;
    this.prefix = options.prefix ? options.prefix.replace(/\/*$/, '/').replace(/^\/+/, '') : '';
    this.client = new this.sdk.s3.S3Client({
      region: options.region || 'us-east-1',
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle ?? false,
      // The SDK's default CRC32 checksums are refused by several S3-compatible stores.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Downloads stream through these sockets for as long as their clients read (DOWNLOADS_PER_ORG
      // bounds them per organisation), so more than the SDK's 50; one that carries nothing for two
      // minutes (a store that stalls, a reader the gateway's DOWNLOAD_IDLE_TIMEOUT_MS did not cut) is given up.
      requestHandler: {
        connectionTimeout: 10_000,
        socketTimeout: SOCKET_IDLE_TIMEOUT_MS,
        httpAgent: { maxSockets: MAX_SOCKETS },
        httpsAgent: { maxSockets: MAX_SOCKETS },
      },
      ...options.client,
    });
  }

  private objectKey(key: string): string {
    assertSafeKey(key);
    return this.prefix + key;
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.client.send(new this.sdk.s3.PutObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key), Body: data, ContentLength: data.length }));
  }

  async putStream(key: string, data: Readable): Promise<number> {
    const Key = this.objectKey(key);
    let bytes = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    let sourceError: unknown;
    data.once('error', (error) => {
      sourceError = error;
      counted.destroy(error);
    });
    data.pipe(counted);
    const upload = new this.sdk.Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key, Body: counted },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false, // a failed upload is aborted: its parts go, nothing appears under the key
    });
    try {
      await upload.done();
    } catch (error) {
      // A failed upload destroys only its own stream: the source must be told too, or whatever
      // feeds it (a ZIP reading a row's file) waits with its files and sockets open.
      data.destroy();
      // When the source failed, say so, even if the store then refused the abort too.
      throw sourceError ?? error;
    }
    return bytes;
  }

  async get(key: string): Promise<Buffer> {
    const { stream } = await this.open(key);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async open(key: string): Promise<{ stream: Readable; size: number }> {
    try {
      const object = await this.client.send(new this.sdk.s3.GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return { stream: object.Body as Readable, size: object.ContentLength ?? 0 };
    } catch (error) {
      throw isNotFound(error) ? new FileNotFoundError(key) : error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new this.sdk.s3.DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await this.client.send(new this.sdk.s3.ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix + prefix, ContinuationToken }));
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key.slice(this.prefix.length));
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return keys.sort();
  }

  /** A presigned GET that answers with the gateway's own Content-Type and Content-Disposition. */
  async downloadUrl(key: string, options: DownloadUrlOptions): Promise<string> {
    const command = new this.sdk.s3.GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ResponseContentType: options.contentType,
      ResponseContentDisposition: options.contentDisposition,
    });
    return this.sdk.getSignedUrl(this.client, command, { expiresIn: options.ttlSeconds });
  }
}

function isNotFound(error: unknown): boolean {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
}
