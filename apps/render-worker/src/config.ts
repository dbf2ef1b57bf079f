import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { commonEnv, envVar } from '@docgen/config';
import { storageEnv } from '@docgen/storage';

export const renderWorkerEnv = z.object({
  ...commonEnv,
  METRICS_PORT: envVar.integer(9101, 0, 65_535),
  HOST: envVar.text('0.0.0.0'),
  ...storageEnv,
  /** Documents and bulk ZIPs older than this many days lose their files and input; 0 keeps everything. */
  RETENTION_DAYS: envVar.integer(0, 0, 36_500),
  RENDER_TIMEOUT_MS: envVar.integer(60_000, 1_000),
  CONVERTER_POOL_SIZE: envVar.integer(availableParallelism(), 1, 64),
  CONVERTER_DRIVER: envVar.choice(['warm', 'per-call'] as const, 'warm'),
  /** Render jobs in flight per worker; 0 = one per warm instance (1 with the per-call driver). */
  RENDER_CONCURRENCY: envVar.integer(0, 0, 256),
  CONVERTER_RECYCLE_AFTER: envVar.integer(500, 1),
  RENDER_LOCK_MS: envVar.integer(30_000, 500),
  OUTBOUND_ALLOW_PRIVATE: envVar.boolean(false),
  MAX_IMAGE_BYTES: envVar.integer(10 * 1024 * 1024, 1),
  IMAGE_FETCH_TIMEOUT_MS: envVar.integer(10_000, 100),
});

export type RenderWorkerConfig = z.output<typeof renderWorkerEnv>;
