import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { defaultChromiumPath } from '@docgen/browser-printer';
import { commonEnv, envVar, expressionEnv, secretsEnv } from '@docgen/config';
import { storageEnv } from '@docgen/storage';

export const renderWorkerEnv = z.object({
  ...commonEnv,
  METRICS_PORT: envVar.integer(9101, 0, 65_535),
  /** Wins over METRICS_PORT, which every service reads: `npm start` runs both workers in one environment. */
  RENDER_WORKER_METRICS_PORT: envVar.optionalInteger(0, 65_535),
  HOST: envVar.text('0.0.0.0'),
  ...storageEnv,
  /** Documents and bulk ZIPs older than this many days lose their files and input; 0 keeps everything. */
  RETENTION_DAYS: envVar.integer(0, 0, 36_500),
  RENDER_TIMEOUT_MS: envVar.integer(60_000, 1_000),
  CONVERTER_POOL_SIZE: envVar.integer(availableParallelism(), 1, 64),
  CONVERTER_DRIVER: envVar.choice(['warm', 'per-call'] as const, 'warm'),
  /** Render jobs in flight per worker; 0 = renderConcurrency()'s default. */
  RENDER_CONCURRENCY: envVar.integer(0, 0, 256),
  CONVERTER_RECYCLE_AFTER: envVar.integer(500, 1),
  /** Plain PDFs of one template and organisation waiting for an instance together converted in one LibreOffice call, up to this many; 1: each alone (docs/generation.md). */
  CONVERTER_BATCH_SIZE: envVar.integer(8, 1, 32),
  RENDER_LOCK_MS: envVar.integer(30_000, 500),
  /** A first attempt still running after this long is marked `rendering`; one done sooner goes queued → ready in one commit. 0 marks every attempt at once. */
  RENDERING_MARK_AFTER_MS: envVar.integer(1_000, 0, 60_000),
  /** Chromium pages printing HTML templates at once (one browser per worker; each page adds RSS). */
  HTML_PRINTER_PAGES: envVar.integer(2, 1, 32),
  /** Restart Chromium after this many printed documents. */
  HTML_PRINTER_RECYCLE_AFTER: envVar.integer(5000, 1),
  CHROMIUM_PATH: envVar.text(defaultChromiumPath()),
  OUTBOUND_ALLOW_PRIVATE: envVar.boolean(false),
  MAX_IMAGE_BYTES: envVar.integer(10 * 1024 * 1024, 1),
  /** Remote image fetches one organisation's documents may make per minute, across workers. */
  IMAGE_FETCHES_PER_ORG: envVar.integer(600, 1),
  /** The gateway's upload limit, also applied when the worker opens a stored template (one written by other means may be a zip bomb). */
  MAX_TEMPLATE_EXPANDED_BYTES: envVar.integer(100 * 1024 * 1024, 1),
  /** Largest filled DOCX (uncompressed XML plus images), estimated before filling. */
  MAX_OUTPUT_BYTES: envVar.integer(50 * 1024 * 1024, 1),
  IMAGE_FETCH_TIMEOUT_MS: envVar.integer(10_000, 100),
  MAX_IMAGES_PER_DOCUMENT: envVar.integer(200, 1),
  MAX_IMAGE_BYTES_PER_DOCUMENT: envVar.integer(50 * 1024 * 1024, 1),
  ...expressionEnv,
  ...secretsEnv,
  /** Watermark of UAT documents that ask for none of their own; empty turns it off. */
  UAT_WATERMARK: z
    .string()
    .max(100)
    .regex(/^[\x20-\x7E\xA0-\xFF]*$/, { error: 'must use Latin letters, digits and punctuation' })
    .default('UAT'),
});

export type RenderWorkerConfig = z.output<typeof renderWorkerEnv>;

/**
 * Renders a worker runs at once. Four per warm instance: while one converts, the others
 * fill, store and finish, and DOCX-only jobs never wait for LibreOffice (bench:e2e, 2 cores,
 * 32 clients: one per instance → four took DOCX from 54.7 to 65.3 docs/s). With batches on,
 * sixteen: batches form only from renders waiting in this worker, and more of them make
 * larger batches (docs/BENCHMARKS.md, tenth session). What a render may hold at most stays
 * at four per instance whatever this is (heavyRenders).
 */
export function renderConcurrency(config: RenderWorkerConfig): number {
  if (config.RENDER_CONCURRENCY) return config.RENDER_CONCURRENCY;
  if (config.CONVERTER_DRIVER === 'per-call') return 1;
  return (config.CONVERTER_BATCH_SIZE > 1 ? 16 : 4) * config.CONVERTER_POOL_SIZE;
}

/**
 * Renders that may hold their heaviest resources at once, four per warm instance: fetched
 * images (up to MAX_IMAGE_BYTES_PER_DOCUMENT each) and PostgreSQL connections, so neither
 * grows with renderConcurrency. A render holds a connection only for its few statements;
 * renders beyond these share connections rather than open more (PostgreSQL counts them
 * across every replica).
 */
export const heavyRenders = (config: RenderWorkerConfig) => Math.min(renderConcurrency(config), 4 * config.CONVERTER_POOL_SIZE);
