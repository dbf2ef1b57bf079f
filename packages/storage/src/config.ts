import { envVar } from '@docgen/config';
import type { FileStorage } from './file-storage';
import { LocalFileStorage } from './local-file-storage';
import { S3FileStorage } from './s3-file-storage';

/** The storage variables of API.md §7, read by every service that touches files. */
export const storageEnv = {
  STORAGE_DRIVER: envVar.choice(['local', 's3'] as const, 'local'),
  STORAGE_DIR: envVar.text('./data/files'),
  S3_BUCKET: envVar.text(''),
  S3_ENDPOINT: envVar.text(''),
  S3_REGION: envVar.text(''),
  S3_FORCE_PATH_STYLE: envVar.boolean(false),
  S3_PREFIX: envVar.text(''),
};

export interface StorageConfig {
  STORAGE_DRIVER: 'local' | 's3';
  STORAGE_DIR: string;
  S3_BUCKET: string;
  S3_ENDPOINT: string;
  S3_REGION: string;
  S3_FORCE_PATH_STYLE: boolean;
  S3_PREFIX: string;
}

export function createStorage(config: StorageConfig): FileStorage {
  if (config.STORAGE_DRIVER === 'local') return new LocalFileStorage(config.STORAGE_DIR);
  if (!config.S3_BUCKET) throw new Error('S3_BUCKET must be set when STORAGE_DRIVER=s3');
  return new S3FileStorage({
    bucket: config.S3_BUCKET,
    endpoint: config.S3_ENDPOINT || undefined,
    region: config.S3_REGION || process.env.AWS_REGION || undefined,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    prefix: config.S3_PREFIX,
  });
}

/** Where files go, for a start-up log line (no credentials). */
export function describeStorage(config: StorageConfig): Record<string, string> {
  return config.STORAGE_DRIVER === 'local'
    ? { driver: 'local', dir: config.STORAGE_DIR }
    : { driver: 's3', bucket: config.S3_BUCKET, endpoint: config.S3_ENDPOINT || 'AWS', prefix: config.S3_PREFIX };
}
