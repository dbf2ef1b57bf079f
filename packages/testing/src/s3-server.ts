import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- s3rver ships no types
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: { closeAllConnections(): void };
};

export interface S3Server {
  endpoint: string;
  bucket: string;
  /** The env a docgen service needs to use this bucket (STORAGE_DRIVER=s3, S3_*, AWS credentials). */
  env: Record<string, string>;
  close: () => Promise<void>;
}

/**
 * A real S3-protocol server (s3rver) on loopback with one empty bucket, its objects in a
 * temporary folder of its own. It accepts any credentials (it checks no signatures).
 */
export async function startS3Server(bucket = 'docgen-test'): Promise<S3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      STORAGE_DRIVER: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: 'docgen/',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    close: async () => {
      // A client that keeps a connection open (a killed writer's half upload, a stream never
      // read) would otherwise hold close() forever.
      const closing = server.close();
      server.httpServer?.closeAllConnections();
      await closing;
      await rm(directory, { recursive: true, force: true });
    },
  };
}
